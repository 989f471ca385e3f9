import assert from "node:assert/strict";
import { type BuildState, buildSteps, ensureCompanionBuilt } from "../../tools/companion_build.ts";
import { COMPANION_UNBUILT_ENV, peerProblem, which } from "../../tools/peers.ts";
import { companionLine } from "../../tools/test.ts";

const STAMP = { lock: "l1", sources: "s1" };
const state = (over: Partial<BuildState>): BuildState => ({
  stored: STAMP,
  current: STAMP,
  built: true,
  installed: true,
  ...over,
});

Deno.test("buildSteps(): nothing while fresh; build when a source changed; npm ci first when the lock changed or deps are gone", () => {
  assert.deepEqual(buildSteps(state({})), []);
  assert.deepEqual(buildSteps(state({ current: { lock: "l1", sources: "s2" } })), ["build"]);
  assert.deepEqual(buildSteps(state({ built: false })), ["build"]);
  assert.deepEqual(buildSteps(state({ current: { lock: "l2", sources: "s1" } })), ["ci", "build"]);
  assert.deepEqual(buildSteps(state({ installed: false })), ["ci", "build"]);
  // A fresh clone: no stamp, no deps, no build.
  assert.deepEqual(buildSteps(state({ stored: null, built: false, installed: false })), [
    "ci",
    "build",
  ]);
  // Deps and a build from before the stamp existed: installed again from the lock, once.
  assert.deepEqual(buildSteps(state({ stored: null })), ["ci", "build"]);
});

/** A module folder and a fake npm that logs its calls and builds (or fails when told). */
async function fixture() {
  const dir = await Deno.makeTempDir({ prefix: "cueport-companion-build-" });
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin);
  await Deno.mkdir(`${dir}/mod/src/sub`, { recursive: true });
  await Deno.writeTextFile(`${dir}/mod/package.json`, "{}");
  await Deno.writeTextFile(`${dir}/mod/package-lock.json`, "{}");
  await Deno.writeTextFile(`${dir}/mod/src/sub/main.ts`, "1");
  await Deno.writeTextFile(
    `${bin}/npm`,
    `#!/bin/sh\necho "$1" >> ${dir}/log\n` +
      `[ -f ${dir}/fail ] && { echo "npm ERR! no network" >&2; exit 1; }\n` +
      `[ "$1" = ci ] && mkdir -p node_modules\n` +
      `[ "$1" = run ] && mkdir -p pkg/cueport && touch pkg/cueport/main.js\nexit 0\n`,
  );
  await Deno.chmod(`${bin}/npm`, 0o755);
  const calls = async () => {
    const log = await Deno.readTextFile(`${dir}/log`).catch(() => "");
    await Deno.remove(`${dir}/log`).catch(() => {});
    return log.trim().split("\n").filter((l) => l !== "");
  };
  return { dir, mod: `${dir}/mod/`, bin, calls };
}

Deno.test({
  name:
    "ensureCompanionBuilt() builds once with one line, again when a source changes, and says why when npm fails",
  ignore: !which("node") || peerProblem("node") !== null,
  fn: async () => {
    const f = await fixture();
    const saved = Deno.env.get("PATH")!;
    const lines: string[] = [];
    const say = (line: string) => lines.push(line);
    try {
      Deno.env.set("PATH", `${f.bin}:${saved}`);
      assert.equal(await ensureCompanionBuilt(say, f.mod), null);
      assert.deepEqual(await f.calls(), ["ci", "run"]);
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, /building the Companion module \(npm ci, npm run build/);

      assert.equal(await ensureCompanionBuilt(say, f.mod), null);
      assert.deepEqual(await f.calls(), [], "kept while its sources are the same");
      assert.equal(lines.length, 1);

      await Deno.writeTextFile(`${f.mod}src/sub/main.ts`, "2");
      assert.equal(await ensureCompanionBuilt(say, f.mod), null);
      assert.deepEqual(await f.calls(), ["run"], "a source changed: built again, no npm ci");

      await Deno.writeTextFile(`${f.mod}package-lock.json`, '{"v":2}');
      await Deno.writeTextFile(`${f.dir}/fail`, "");
      const problem = await ensureCompanionBuilt(say, f.mod);
      assert.match(
        problem ?? "",
        /^npm ci failed in integrations\/companion: npm ERR! no network$/,
      );
      await Deno.remove(`${f.dir}/fail`);
      await f.calls();
      assert.equal(await ensureCompanionBuilt(say, f.mod), null);
      assert.deepEqual(await f.calls(), ["ci", "run"], "a failed build is not kept");
    } finally {
      Deno.env.set("PATH", saved);
      await Deno.remove(f.dir, { recursive: true });
    }
  },
});

Deno.test("ensureCompanionBuilt() without node names it and runs no npm", async () => {
  const f = await fixture();
  const saved = Deno.env.get("PATH")!;
  try {
    Deno.env.set("PATH", f.bin);
    assert.equal(await ensureCompanionBuilt(() => {}, f.mod), "node not found");
    assert.deepEqual(await f.calls(), []);
  } finally {
    Deno.env.set("PATH", saved);
    await Deno.remove(f.dir, { recursive: true });
  }
});

Deno.test("an unbuilt Companion module makes node count as missing, in one line", () => {
  const line = companionLine("npm ci failed in integrations/companion: E404", false);
  assert.equal(line.split("\n").length, 1);
  assert.match(
    line,
    /^tests: the Companion module is not built \(npm ci failed.*E404\): its tests are skipped/,
  );
  assert.match(companionLine("x", true), /its tests fail \(CUEPORT_TEST_PEERS=required\)/);
  if (!which("node")) return;
  const saved = Deno.env.get(COMPANION_UNBUILT_ENV);
  try {
    Deno.env.set(COMPANION_UNBUILT_ENV, "npm ci failed");
    assert.equal(peerProblem("node"), "npm ci failed");
  } finally {
    if (saved === undefined) Deno.env.delete(COMPANION_UNBUILT_ENV);
    else Deno.env.set(COMPANION_UNBUILT_ENV, saved);
  }
});

import assert from "node:assert/strict";
import { denoTestArgs, missingLine } from "../../tools/test.ts";
import { peer, PEERS, which } from "../../tools/peers.ts";
import { testFlags } from "../../server/deploy/permissions.ts";

const RUNNER = new URL("../../tools/test.ts", import.meta.url).pathname;

Deno.test("denoTestArgs() runs tests/ unless a file is named", () => {
  const flags = testFlags();
  assert.deepEqual(denoTestArgs([]), ["test", ...flags, "tests/"]);
  assert.deepEqual(denoTestArgs(["--junit-path=x.xml"]), [
    "test",
    ...flags,
    "--junit-path=x.xml",
    "tests/",
  ]);
  assert.deepEqual(denoTestArgs(["--filter", "OSC"]), [
    "test",
    ...flags,
    "--filter",
    "OSC",
    "tests/",
  ]);
  assert.deepEqual(denoTestArgs(["tests/a_test.ts"]), ["test", ...flags, "tests/a_test.ts"]);
});

Deno.test("missingLine() names each peer, its package and what happens to its tests", () => {
  const line = missingLine([peer("ffmpeg"), peer("oscsend")], false);
  assert.equal(line.split("\n").length, 1);
  assert.match(line, /^tests: missing ffmpeg \(.+\), oscsend \(.+\): their tests are skipped; /);
  assert.match(line, /apt-get install ffmpeg liblo-tools/);
  assert.match(missingLine([peer("chromium")], true), /their tests fail \(CUEPORT_TEST_PEERS=/);
});

Deno.test("which() finds a command on PATH and nothing that is not there", async () => {
  const dir = await Deno.makeTempDir();
  const saved = Deno.env.get("PATH");
  try {
    await Deno.writeTextFile(`${dir}/cueport-peer-probe`, "#!/bin/sh\n");
    Deno.env.set("PATH", `/nonexistent:${dir}`);
    assert.equal(which("cueport-peer-probe"), `${dir}/cueport-peer-probe`);
    assert.equal(which("cueport-no-such-program"), undefined);
  } finally {
    if (saved !== undefined) Deno.env.set("PATH", saved);
    await Deno.remove(dir, { recursive: true });
  }
  assert.ok(PEERS.every((p) => p.debian !== "" && p.why !== "" && p.commands.length > 0));
});

/** Runs the test runner on `args` with `env`; its exit code and output. */
async function runRunner(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-run", "--allow-read", "--allow-env", "--allow-sys=uid", RUNNER, ...args],
    env: { CUEPORT_TEST_INSTALL: "0", NO_COLOR: "1", RUST_BACKTRACE: "", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, out: text(out.stdout) + text(out.stderr) };
}

Deno.test("deno task test FILE runs that file alone; a missing peer skips its test or, when required, fails it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cueport-runner-" });
  try {
    const file = `${dir}/peer_test.ts`;
    const peers = new URL("../../tools/testing/peers.ts", import.meta.url).href;
    await Deno.writeTextFile(
      file,
      `import { needs } from "${peers}";\n` +
        `Deno.test("plain", () => {});\n` +
        `Deno.test("needs ffmpeg", needs("ffmpeg"), async () => {\n` +
        `  await new Deno.Command("ffmpeg", { args: ["-version"] }).output();\n` +
        `});\n`,
    );
    // A PATH with no ffmpeg on it: the runner names it, the test is skipped.
    const noPeers = { PATH: dir, CUEPORT_TEST_PEERS: "" }; // CI runs this test with "required"
    const skipped = await runRunner([file], noPeers);
    assert.equal(skipped.code, 0, skipped.out);
    assert.match(skipped.out, /running 2 tests from .*peer_test\.ts/);
    assert.doesNotMatch(skipped.out, /running \d+ tests? from \.\/tests\//, "only that file");
    assert.match(skipped.out, /tests: missing ps .*ffmpeg .*: their tests are skipped;/);
    assert.match(skipped.out, /needs ffmpeg \.\.\. ignored/);

    const required = await runRunner([file], { ...noPeers, CUEPORT_TEST_PEERS: "required" });
    assert.notEqual(required.code, 0, required.out);
    assert.match(required.out, /their tests fail \(CUEPORT_TEST_PEERS=required\)/);
    assert.match(required.out, /needs ffmpeg \.\.\. FAILED/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the README's table of test peers is tools/peers.ts's list", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const section = readme.slice(readme.indexOf("\n## Test\n"), readme.indexOf("\nOther tasks:"));
  const rows = section.split("\n").filter((l) => /^\| `[^`]+`.*\(`[^`]+`\)/.test(l));
  assert.equal(rows.length, PEERS.length, "one row per peer");
  for (const p of PEERS) {
    const row = rows.find((r) => r.startsWith(`| \`${p.name}\``));
    assert.ok(row, `a row for ${p.name}`);
    assert.ok(row.includes(`(\`${p.debian}\`)`), `${p.name}'s package`);
    assert.ok(row.includes(p.why), `${p.name}: ${p.why}`);
  }
});

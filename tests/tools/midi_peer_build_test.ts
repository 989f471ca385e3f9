import assert from "node:assert/strict";
import { ensureMidiPeerInstalled, midiPeerInstalled } from "../../tools/midi_peer_build.ts";
import { peerProblem, which } from "../../tools/peers.ts";
import { midiPeerLine } from "../../tools/test.ts";

/** A peer folder and a fake npm that logs its calls and installs (or fails when told). */
async function fixture() {
  const dir = await Deno.makeTempDir({ prefix: "cueport-midi-peer-" });
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin);
  await Deno.mkdir(`${dir}/peer`);
  await Deno.writeTextFile(`${dir}/peer/package-lock.json`, "{}");
  await Deno.writeTextFile(
    `${bin}/npm`,
    `#!/bin/sh\necho "$1" >> ${dir}/log\n` +
      `[ -f ${dir}/fail ] && { echo "npm ERR! no network" >&2; exit 1; }\n` +
      `mkdir -p node_modules/rtpmidi && echo {} > node_modules/rtpmidi/package.json\nexit 0\n`,
  );
  await Deno.chmod(`${bin}/npm`, 0o755);
  const calls = async () => {
    const log = await Deno.readTextFile(`${dir}/log`).catch(() => "");
    await Deno.remove(`${dir}/log`).catch(() => {});
    return log.trim().split("\n").filter((l) => l !== "");
  };
  return { dir, peer: `${dir}/peer/`, bin, calls };
}

Deno.test({
  name:
    "ensureMidiPeerInstalled() runs npm ci once, again when the lock changes, says why it fails",
  ignore: !which("node") || peerProblem("node") !== null,
  fn: async () => {
    const f = await fixture();
    const saved = Deno.env.get("PATH")!;
    const lines: string[] = [];
    try {
      Deno.env.set("PATH", `${f.bin}:${saved}`);
      assert.equal(await midiPeerInstalled(f.peer), false);
      assert.equal(await ensureMidiPeerInstalled((l) => lines.push(l), f.peer), null);
      assert.deepEqual(await f.calls(), ["ci"]);
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, /installing the network MIDI test peer \(npm ci/);
      assert.equal(await midiPeerInstalled(f.peer), true);
      assert.equal(await ensureMidiPeerInstalled((l) => lines.push(l), f.peer), null);
      assert.deepEqual(await f.calls(), [], "kept while its lock is the same");

      await Deno.writeTextFile(`${f.peer}package-lock.json`, '{"v":2}');
      await Deno.writeTextFile(`${f.dir}/fail`, "");
      assert.equal(
        await ensureMidiPeerInstalled(() => {}, f.peer),
        "npm ci failed in tools/midi_peer: npm ERR! no network",
      );
      await Deno.remove(`${f.dir}/fail`);
      await f.calls();
      assert.equal(await ensureMidiPeerInstalled(() => {}, f.peer), null);
      assert.deepEqual(await f.calls(), ["ci"], "a failed install is not kept");
    } finally {
      Deno.env.set("PATH", saved);
      await Deno.remove(f.dir, { recursive: true });
    }
  },
});

Deno.test("ensureMidiPeerInstalled() without node names it and runs no npm", async () => {
  const f = await fixture();
  const saved = Deno.env.get("PATH")!;
  try {
    Deno.env.set("PATH", f.bin);
    assert.equal(await ensureMidiPeerInstalled(() => {}, f.peer), "node not found");
    assert.deepEqual(await f.calls(), []);
  } finally {
    Deno.env.set("PATH", saved);
    await Deno.remove(f.dir, { recursive: true });
  }
});

Deno.test("a MIDI peer that cannot be installed is one line, skipped or failed as required", () => {
  const line = midiPeerLine("npm ci failed in tools/midi_peer: E404", false);
  assert.equal(line.split("\n").length, 1);
  assert.match(
    line,
    /^tests: the network MIDI peer is not installed \(npm ci.*\): its tests are skipped/,
  );
  assert.match(midiPeerLine("x", true), /its tests fail \(CUEPORT_TEST_PEERS=required\)/);
});

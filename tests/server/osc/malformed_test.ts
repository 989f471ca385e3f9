import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { OscPeer } from "./_peer.ts";

const encoder = new TextEncoder();

function padded(text: string): number[] {
  const bytes = [...encoder.encode(text), 0];
  while (bytes.length % 4) bytes.push(0);
  return bytes;
}

const CASES: Array<[string, number[]]> = [
  ["truncated (not a multiple of 4)", [...padded("/play"), ...padded(",i"), 0, 0, 1]],
  ["a type tag without its argument", [...padded("/control/A"), ...padded(",f")]],
  ["an unknown type tag", [...padded("/control/A"), ...padded(",q"), 0, 0, 0, 0]],
  ["wrong padding (not zero)", [47, 112, 108, 97, 121, 0, 1, 1]],
  ["a type tag string without its comma", [...padded("/play"), ...padded("f"), 0, 0, 0, 0]],
  ["no address", [...padded("play")]],
];

Deno.test("OSC: malformed datagrams are answered with /error to senders that may send, and run nothing", async () => {
  const svc = await startTestService();
  const peer = OscPeer.open(svc.service.ports.osc);
  try {
    for (const [what, bytes] of CASES) {
      await peer.raw(new Uint8Array(bytes));
      const answer = await peer.next();
      assert.equal(answer.address, "/error", what);
      const body = JSON.parse(answer.args[0]);
      assert.equal(body.data.code, "INVALID_MESSAGE", what);
    }
    const state = (await svc.get("/api/v1/projects/show/playstate")).body;
    assert.equal(state.song.state, "stopped");
    assert.deepEqual(state.controls, {});
    assert.equal((await peer.ask("/ping")).status, "ok", "the port still serves");
  } finally {
    await peer.close();
    await svc.stop();
  }
});

Deno.test("OSC: malformed datagrams from senders that may not send are dropped without a word", async () => {
  const svc = await startTestService();
  const remote = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
  const local = OscPeer.open(svc.service.ports.osc);
  try {
    for (const [, bytes] of CASES) await remote.raw(new Uint8Array(bytes));
    // A local round trip after them: any answer to the remote would have come by now.
    assert.equal((await local.ask("/ping")).status, "ok");
    assert.deepEqual(remote.pending, []);
  } finally {
    await remote.close();
    await local.close();
    await svc.stop();
  }
});

Deno.test("OSC: bundles nest at most 8 deep", async () => {
  const svc = await startTestService();
  const peer = OscPeer.open(svc.service.ports.osc);
  try {
    let packet = [...padded("/control/A"), ...padded(",f"), 0x3f, 0, 0, 0];
    for (let i = 0; i < 9; i++) {
      const size = packet.length;
      packet = [
        ...padded("#bundle"),
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        1,
        (size >> 24) & 255,
        (size >> 16) & 255,
        (size >> 8) & 255,
        size & 255,
        ...packet,
      ];
    }
    await peer.raw(new Uint8Array(packet));
    const answer = await peer.reply("#bundle");
    assert.match(answer.data.message, /nest at most 8 deep/);
    assert.deepEqual((await svc.get("/api/v1/projects/show/playstate")).body.controls, {});
  } finally {
    await peer.close();
    await svc.stop();
  }
});

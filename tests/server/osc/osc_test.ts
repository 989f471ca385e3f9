import assert from "node:assert/strict";
import * as osc from "osc-min";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { OscDump, OscPeer, oscsend } from "./_peer.ts";
import { needs } from "../../../tools/testing/peers.ts";

async function withService(
  fn: (svc: TestService, port: number) => Promise<void>,
  overrides: Parameters<typeof startTestService>[0] = {},
): Promise<void> {
  const svc = await startTestService(overrides);
  try {
    await fn(svc, svc.service.ports.osc);
  } finally {
    await svc.stop();
  }
}

/** The live Control values of the fixture project. */
async function controls(svc: TestService): Promise<Record<string, number>> {
  return (await svc.get("/api/v1/projects/show/playstate")).body.controls;
}

Deno.test(
  "OSC: oscsend drives actions; oscdump receives the replies at the port named by reply=",
  needs("oscsend"),
  async () => {
    await withService(async (svc, port) => {
      const dump = await OscDump.start();
      try {
        await oscsend(port, "/control/A", "fs", "0.25", `reply=${dump.port}`);
        await oscsend(port, "/song/select", "is", "1", `reply=${dump.port}`);
        await oscsend(port, "/nope", "s", `reply=${dump.port}`);
        await until("three replies", () => dump.lines().length >= 3);
        const lines = dump.lines();
        assert.match(lines.find((l) => l.startsWith("/reply/control/A"))!, /"status":"ok"/);
        assert.match(lines.find((l) => l.startsWith("/reply/song/select"))!, /"index":1/);
        assert.match(lines.find((l) => l.startsWith("/reply/nope"))!, /"code":"NOT_FOUND"/);
        const state = await svc.get("/api/v1/projects/show/playstate");
        assert.equal(state.body.activeSongID, "s2");
      } finally {
        await dump.stop();
      }
    });
  },
);

Deno.test("OSC: replies go to the sender's own port; actions reply only when asked", async () => {
  await withService(async (svc, port) => {
    const peer = OscPeer.open(port);
    try {
      await peer.send("/control/B", [0.5]); // no reply asked
      const answer = await peer.ask("/control/C", [{ type: "string", value: "0.3" }]);
      assert.equal(answer.status, "ok");
      assert.equal(answer.address, "/control/C");
      assert.deepEqual(answer.data.params, { controlID: "C", value: 0.3 });
      assert.deepEqual(peer.pending, [], "no reply to the message that did not ask");
      await until("B applied", async () => (await controls(svc)).B === 0.5);
      // Floats are read as the float32 the desk meant: 0.3f is 0.3.
      const f = await peer.ask("/control/D", [{ type: "float", value: 0.3 }]);
      assert.equal(f.data.params.value, 0.3);
    } finally {
      await peer.close();
    }
  });
});

Deno.test("OSC: every argument type and the action rules of HTTP (base, velocity, ranges, booleans)", async () => {
  await withService(async (_svc, port) => {
    const peer = OscPeer.open(port);
    try {
      const byIndex = await peer.ask("/clip/index/1/play", ["base=1", "velocity=64"]);
      assert.equal(byIndex.status, "ok", JSON.stringify(byIndex));
      assert.equal(byIndex.data.params.index, 0);
      assert.equal(byIndex.data.velocity, 64);
      const generic = await peer.ask("/action", ["SONG_SELECT_IN", { type: "integer", value: 3 }, {
        type: "false",
      }, "base=1"]);
      assert.deepEqual(generic.data.params, { index: 2, stopPlaying: false });
      const named = await peer.ask("/action/SONG_SELECT_IN", [{ type: "string", value: "0" }]);
      assert.equal(named.data.params.index, 0);
      const level = await peer.ask("/output/level", [{ type: "float", value: 1.5 }]);
      assert.equal(level.status, "error");
      assert.equal(level.data.code, "INVALID_MESSAGE");
      assert.match(level.data.message, /params\[0\] \(level\).*0\.0 to 1\.0/);
      const tooMany = await peer.ask("/play", [{ type: "integer", value: 1 }]);
      assert.equal(tooMany.data.code, "INVALID_MESSAGE");
      const blob = await peer.ask("/control/A", [{ type: "blob", value: new Uint8Array(4) }]);
      assert.match(blob.data.message, /blob is not accepted/);
      const velocity = await peer.ask("/clip/c1/trigger", ["velocity=300"]);
      assert.equal(velocity.data.details.field, "velocity");
      const record = await peer.ask("/record/toggle", ["now"]);
      assert.equal(record.data.action, "RECORD_TOGGLE");
      const unknown = await peer.ask("/action", ["PLAY"]);
      assert.match(unknown.data.message, /unknown action "PLAY"/);
      const param = await peer.ask("/param/clip:c1/opacity", [{ type: "float", value: 0.5 }]);
      assert.equal(param.data.params.targetID, "clip:c1/opacity");
    } finally {
      await peer.close();
    }
  });
});

Deno.test("OSC: /get/<query> answers from the read model, with arguments by position or name", async () => {
  await withService(async (_svc, port) => {
    const peer = OscPeer.open(port);
    try {
      await peer.send("/get/songs");
      const songs = await peer.reply("/get/songs");
      assert.deepEqual(songs.data.songs.map((s: { songID: string }) => s.songID), [
        "s1",
        "s2",
        "s3",
      ]);
      await peer.send("/get/song", ["s2"]);
      assert.equal((await peer.reply("/get/song")).data.songID, "s2");
      await peer.send("/get/clips", ["c1,c2", "projectId=show"]);
      assert.equal((await peer.reply("/get/clips")).data.clips.length, 2);
      await peer.send("/get/song");
      assert.equal((await peer.reply("/get/song")).data.details.field, "songID");
      await peer.send("/get/playstate", ["projectId=nope"]);
      assert.equal((await peer.reply("/get/playstate")).data.code, "NOT_FOUND");
    } finally {
      await peer.close();
    }
  });
});

Deno.test("OSC: address patterns on Control letters and Clip ids", async () => {
  await withService(async (svc, port) => {
    const peer = OscPeer.open(port);
    try {
      await peer.send("/control/{A,B,C}", [0.75, "reply"]);
      for (let i = 0; i < 3; i++) assert.equal((await peer.reply("/control/{A,B,C}")).status, "ok");
      await peer.send("/control/[D-E]", [0.5]);
      await peer.send("/control/?", [{ type: "string", value: "x" }, "reply"]);
      const refused = await peer.reply("/control/?");
      assert.equal(refused.data.code, "INVALID_MESSAGE");
      await until("D and E applied", async () => (await controls(svc)).E === 0.5);
      const values = await controls(svc);
      assert.deepEqual([values.A, values.B, values.C, values.D], [0.75, 0.75, 0.75, 0.5]);
      await peer.send("/*", ["reply"]);
      assert.equal((await peer.reply("/*")).data.code, "NOT_FOUND", "fixed words are not patterns");
      await peer.send("/control/[A", ["reply"]);
      assert.equal((await peer.reply("/control/[A")).data.code, "INVALID_MESSAGE");
    } finally {
      await peer.close();
    }
  });
});

Deno.test("OSC: a bundle runs in order; a future timetag runs at that time on the player's clock", async () => {
  await withService(async (svc, port) => {
    const peer = OscPeer.open(port);
    try {
      const msg = (v: number) => ({ address: "/control/A", args: [v] });
      const now = osc.toBuffer({ timetag: [0, 1], elements: [msg(0.1), msg(0.2), msg(0.3)] });
      await peer.raw(new Uint8Array(now.buffer as ArrayBuffer, now.byteOffset, now.byteLength));
      await until("bundle applied", async () => (await controls(svc)).A === 0.3);
      const in10s = new Date(Date.now() + 10_000);
      const later = osc.toBuffer({ timetag: in10s, elements: [msg(0.9)] });
      await peer.raw(
        new Uint8Array(later.buffer as ArrayBuffer, later.byteOffset, later.byteLength),
      );
      await until("bundle queued", () => svc.service.osc.pendingBundles === 1);
      await svc.advance(5_000);
      assert.equal(
        svc.service.osc.pendingBundles,
        1,
        "not yet: 5 s of 10 passed on the player's clock",
      );
      assert.equal((await controls(svc)).A, 0.3);
      await svc.advance(6_000);
      await until("bundle ran", async () => (await controls(svc)).A === 0.9);
      assert.equal(svc.service.osc.pendingBundles, 0);
    } finally {
      await peer.close();
    }
  });
});

Deno.test("OSC: /output/display chooses the output's display (a desk's float index read as its number, a name, primary); /get/displays answers the list", async () => {
  await withService(async (svc, port) => {
    const peer = OscPeer.open(port);
    const chosen = async () => (await svc.get("/api/v1/app-state")).body.outputDisplay;
    try {
      const byFloat = await peer.ask("/output/display", [{ type: "float", value: 1 }]);
      assert.equal(byFloat.status, "ok", JSON.stringify(byFloat));
      assert.equal(await chosen(), "1");
      assert.equal((await peer.ask("/output/display", ["RIGHT"])).status, "ok");
      assert.equal(await chosen(), "RIGHT");
      assert.equal((await peer.ask("/action/OUTPUT_DISPLAY", ["primary"])).status, "ok");
      assert.equal(await chosen(), null);
      await peer.send("/get/displays");
      const listed = (await peer.reply("/get/displays")).data;
      assert.ok(Array.isArray(listed.displays), JSON.stringify(listed));
      assert.equal(listed.choice, null);
    } finally {
      await peer.close();
    }
  });
});

/**
 * Timecode end to end: samples posted to `POST /api/v1/timecode` on a real service and
 * player (virtual clock) move the fixture's Song s1 (20 s of audio), set to chase by the
 * timecode edits; `GET /api/v1/app-state` shows the chase.
 */
import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { OscPeer } from "../osc/_peer.ts";

const HOUR = 3600;

Deno.test("POST /api/v1/timecode: the Song chases the code, follows a jump, stops after the freewheel", async () => {
  const svc = await startTestService();
  try {
    const edit = await svc.post("/api/v1/edit", {
      edits: [
        {
          name: "project.set_timecode",
          params: { chase: true, frameRate: 25, offset: "01:00:00:00", freewheel: 0.5 },
        },
        { name: "song.set_timecode", params: { songID: "s2", offset: "01:02:00:00" } },
      ],
    });
    assert.equal(edit.status, 200, JSON.stringify(edit.body));
    const code = (seconds: number) =>
      svc.post("/api/v1/timecode", { seconds, rate: 25, motion: "forward" });
    const song = async () => (await svc.get("/api/v1/projects/show/playstate")).body.song;

    const first = await svc.post("/api/v1/timecode", { timecode: "01:00:02:00", rate: 25 });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.status, "locked");
    assert.equal(first.body.position, 2);
    let at = HOUR + 2;
    for (let i = 0; i < 10; i++) {
      await svc.advance(80);
      at += 0.08;
      await code(at);
    }
    const playing = await song();
    assert.equal(playing.state, "playing");
    assert.ok(Math.abs(playing.position - (at - HOUR)) <= 2 / 25, `${playing.position}`);
    const appState = (await svc.get("/api/v1/app-state")).body;
    assert.equal(appState.timecode.status, "locked");
    assert.equal(appState.timecode.songID, "s1");
    assert.equal(appState.timecode.timecode, "01:00:02:00", "reported when it locked");

    await svc.advance(80);
    await code(HOUR + 12);
    assert.equal((await song()).position, 12, "a jump seeks at once");

    // A sample read 80 ms ago (it says age): the code is 80 ms on, where the Song is.
    await svc.advance(80);
    const aged = await svc.post("/api/v1/timecode", { seconds: HOUR + 12, rate: 25, age: 80 });
    assert.equal(aged.status, 200, JSON.stringify(aged.body));
    assert.ok(Math.abs(aged.body.position - 12.08) < 1e-6, `${aged.body.position}`);
    assert.ok(Math.abs((await song()).position - 12.08) < 1e-6, "not set back to 12");

    await svc.advance(500);
    const stopped = await song();
    assert.equal(stopped.state, "paused", "paused once the freewheel ran out");
    assert.ok(Math.abs(stopped.position - 12.08) < 1e-6, `${stopped.position}`);
    assert.equal((await svc.get("/api/v1/app-state")).body.timecode.status, "waiting");
  } finally {
    await svc.stop();
  }
});

Deno.test("POST /api/v1/timecode and the timecode edits refuse bad values, naming the field", async () => {
  const svc = await startTestService();
  try {
    const both = await svc.post("/api/v1/timecode", {
      seconds: 1,
      timecode: "00:00:01:00",
      rate: 25,
    });
    assert.equal(both.status, 400);
    assert.equal(both.body.error.details.field, "seconds");
    const rate = await svc.post("/api/v1/timecode", { seconds: 1, rate: 23.976 });
    assert.equal(rate.status, 400);
    assert.equal(rate.body.error.details.field, "rate");
    const frames = await svc.post("/api/v1/timecode", { timecode: "00:00:01:27", rate: 25 });
    assert.equal(frames.status, 400);
    assert.match(frames.body.error.message, /frames go 00-24/);
    const set = await svc.post("/api/v1/edit", {
      edits: [{ name: "project.set_timecode", params: { chase: true, frameRate: 30 } }],
    });
    assert.equal(set.status, 200);
    const read = async () => (await svc.get("/api/v1/projects/show")).body.timecode;
    assert.deepEqual(await read(), {
      chase: true,
      frameRate: 30,
      offset: "00:00:00:00",
      freewheel: 1.5,
    });
    await svc.post("/api/v1/edit", { edits: [{ name: "project.undo", params: {} }] });
    assert.equal((await read()).chase, false, "the read model follows the undo");
    await svc.post("/api/v1/edit", {
      edits: [{ name: "song.set_timecode", params: { songID: "s2", chase: false } }],
    });
    const s2 = (await svc.get("/api/v1/projects/show/songs/s2")).body;
    assert.deepEqual(s2.timecode, { chase: false, offset: null });
    const offset = await svc.post("/api/v1/edit", {
      edits: [{ name: "project.set_timecode", params: { offset: "1:00:00:00" } }],
    });
    assert.equal(offset.status, 400, JSON.stringify(offset.body));
    assert.match(JSON.stringify(offset.body), /offset/);
    const late = await svc.post("/api/v1/edit", {
      edits: [{ name: "song.set_timecode", params: { songID: "s1", offset: "01:00:00:28" } }],
    });
    assert.notEqual(late.status, 200);
    assert.match(JSON.stringify(late.body), /Invalid offset.*frames go 00-24/);
  } finally {
    await svc.stop();
  }
});

Deno.test("OSC /timecode hands the show a sample, its numbers read from any argument type", async () => {
  const svc = await startTestService();
  const peer = OscPeer.open(svc.service.ports.osc);
  try {
    await svc.post("/api/v1/edit", {
      edits: [{ name: "project.set_timecode", params: { chase: true, offset: "01:00:00:00" } }],
    });
    const locked = await peer.ask("/timecode", [
      { type: "integer", value: 25 },
      { type: "float", value: HOUR + 4 },
    ]);
    assert.equal(locked.status, "ok", JSON.stringify(locked));
    assert.equal(locked.data.status, "locked");
    assert.equal(locked.data.position, 4);
    assert.equal(locked.data.source, "127.0.0.1");
    const named = await peer.ask("/timecode", ["25", "timecode=01:00:09:00", "motion=locate"]);
    assert.equal(named.data.status, "waiting", JSON.stringify(named));
    assert.equal((await svc.get("/api/v1/projects/show/playstate")).body.song.position, 9);
    const bad = await peer.ask("/timecode", ["24.5", "1"]);
    assert.equal(bad.status, "error");
    assert.equal(bad.data.details.field, "rate");
  } finally {
    await peer.close();
    await svc.stop();
  }
});

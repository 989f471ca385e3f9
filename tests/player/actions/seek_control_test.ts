import assert from "node:assert/strict";
import { openFixture } from "../../../tools/testing/fixture.ts";
import { Project } from "../../../protocol/model.ts";

Deno.test("SEEK_CLIP_IN takes a fraction; a stopped Clip is cued, paused", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    await f.run("SEEK_CLIP_IN", { clipID: "c1", percent: 0.5 });
    assert.equal(f.state().clips[0]!.position, 5);
    f.clock.advance(1000);
    assert.equal(f.state().clips[0]!.position, 6);
    const mark = f.updates.length;
    await f.run("SEEK_CLIP_IN", { clipID: "c3", percent: 0.5 });
    assert.equal(f.clipState("c3"), "paused");
    const states = f.updates.slice(mark).filter((u) => u.data.clipID === "c3").map((u) =>
      u.data.newState
    );
    assert.deepEqual(states, ["paused"], "a cued Clip never reports playing");
    await f.run("RESUME_IN", { clipID: "c3" });
    f.clock.advance(1000);
    assert.equal(f.state().clips.find((c) => c.clipID === "c3")!.position, 4);
  } finally {
    await f.close();
  }
});

Deno.test("SEEK_SONG_IN seeks the active Song; skipped cues do not fire", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_IN");
    await f.run("SEEK_SONG_IN", { songID: "s1", percent: 0.3 }); // 6 s: past q1 at 5 s
    assert.equal(f.state().song?.position, 6);
    assert.equal(f.state().song?.lyricIndex, 1);
    f.clock.advance(1000);
    assert.equal(f.clipState("c4"), "stopped");
    assert.ok(!f.updates.some((u) => u.data.event === "cue-fired" && u.data.cueId === "q1"));
    await assert.rejects(
      f.run("SEEK_SONG_IN", { songID: "s2", percent: 0.5 }),
      /not the active Song/,
    );
    await f.run("SONG_SELECT_BY_ID", { songID: "s2" });
    await assert.rejects(f.run("SEEK_SONG_IN", { songID: "s2", percent: 0.5 }), /has no audio/);
  } finally {
    await f.close();
  }
});

Deno.test("CLIP_DIRECTION reverses a playing Clip and saves the setting", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    f.clock.advance(4000);
    await f.run("CLIP_DIRECTION", { clipID: "c1", direction: "backward" });
    f.clock.advance(1000);
    assert.equal(f.state().clips[0]!.position, 3);
    assert.equal(f.state().clips[0]!.direction, "backward");
    f.clock.advance(3000);
    assert.equal(f.clipState("c1"), "stopped", "a backward Clip ends at 0");
    const saved = Project.parse(
      JSON.parse(await Deno.readTextFile(`${f.dataDir}/projects/show/project.json`)),
    );
    assert.equal(saved.clips.find((c) => c.id === "c1")!.direction, "backward");
    assert.equal(saved.revision, 1);
    assert.ok(f.events().includes("clip:clip-changed"));
    assert.equal(
      (await f.run("CLIP_DIRECTION", { clipID: "c1", direction: "backward" })).applied,
      false,
    );
  } finally {
    await f.close();
  }
});

Deno.test("CLIP_DIRECTION beside an edit of the same Clip: neither is lost", async () => {
  const f = await openFixture();
  try {
    const renamed = f.app.applyEdits({
      projectId: null,
      edits: [{ name: "clip.update", params: { clipID: "c1", name: "Renamed" } }],
    });
    const reversed = f.run("CLIP_DIRECTION", { clipID: "c1", direction: "backward" });
    await Promise.all([renamed, reversed]);
    const clip = f.app.snapshot().projects[0]!.clips.find((c) => c.id === "c1")!;
    assert.deepEqual([clip.name, clip.direction], ["Renamed", "backward"]);
  } finally {
    await f.close();
  }
});

Deno.test("CLIP_DIRECTION twice at once: the second finds it done and commits nothing", async () => {
  const f = await openFixture();
  try {
    const results = await Promise.all([
      f.run("CLIP_DIRECTION", { clipID: "c1", direction: "backward" }),
      f.run("CLIP_DIRECTION", { clipID: "c1", direction: "backward" }),
    ]);
    assert.deepEqual(results.map((r) => r.applied), [true, false]);
    assert.equal(f.app.snapshot().projects[0]!.revision, 1);
    assert.equal(f.events().filter((e) => e === "clip:clip-changed").length, 1);
  } finally {
    await f.close();
  }
});

Deno.test("SET_CONTROL shapes the value through the Control's settings onto its Targets", async () => {
  const f = await openFixture();
  try {
    await f.run("SET_CONTROL", { controlID: "A", value: 0.25 });
    assert.equal(f.app.snapshot().live.show!.params.c1!.opacity, 0.25);
    await f.run("SET_CONTROL", { controlID: "B", value: 0.5 }); // exponential, 0.5..2
    assert.equal(f.app.snapshot().live.show!.params.c1!.speed, 0.5 + 0.25 * 1.5);
    await f.run("SET_CONTROL", { controlID: "B", value: 3 }); // clamped by the Control
    assert.equal(f.app.snapshot().live.show!.params.c1!.speed, 2);
    const out = await f.run("SET_CONTROL", { controlID: "C", value: 0.2 });
    assert.match(out.message, /1 Target\(s\) written, 1 skipped/);
    assert.equal(f.app.snapshot().live.show!.params.c4!.volume, 0.8);
    assert.equal(f.app.snapshot().live.show!.controls.C, 0.2);
  } finally {
    await f.close();
  }
});

Deno.test("SET_PARAM writes one Target unclamped; speed retimes a playing Clip", async () => {
  const f = await openFixture();
  try {
    await f.run("SET_PARAM", { targetID: "clip:c1/opacity", value: 1.7 });
    assert.equal(f.app.snapshot().live.show!.params.c1!.opacity, 1.7);
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    f.clock.advance(2000);
    await f.run("SET_PARAM", { targetID: "clip:c1/speed", value: 2 });
    f.clock.advance(1000);
    assert.equal(f.state().clips[0]!.position, 4);
    f.clock.advance(3000); // (10 - 4) / 2
    assert.equal(f.clipState("c1"), "stopped");
    await assert.rejects(
      f.run("SET_PARAM", { targetID: "clip:c1/wobble", value: 1 }),
      /Clip parameter "wobble" does not exist/,
    );
    await assert.rejects(
      f.run("SET_PARAM", { targetID: "clip:nope/opacity", value: 1 }),
      /Clip "nope" does not exist/,
    );
  } finally {
    await f.close();
  }
});

Deno.test("position reports go out while something plays, on the clock", async () => {
  const f = await openFixture({ positionIntervalMs: 250 });
  try {
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    const before = f.updates.filter((u) => u.data.event === "positions").length;
    f.clock.advance(1000);
    const reports = f.updates.filter((u) => u.data.event === "positions").slice(before);
    assert.equal(reports.length, 4);
    await f.run("STOP_ALL_CLIPS_IN");
    const after = f.updates.length;
    f.clock.advance(5000);
    assert.equal(f.updates.length, after, "nothing reported while idle");
    assert.equal(f.clock.pendingTimers, 0);
  } finally {
    await f.close();
  }
});

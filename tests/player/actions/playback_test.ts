import assert from "node:assert/strict";
import { openFixture } from "../../../tools/testing/fixture.ts";
import { Refusal } from "../../../player/errors.ts";

Deno.test("PLAY_IN starts the Song transport, fires cues and lyrics in real time", async () => {
  const f = await openFixture();
  try {
    const out = await f.run("PLAY_IN");
    assert.equal(out.applied, true);
    assert.equal(f.state().song?.state, "playing");
    f.clock.advance(1000);
    assert.equal(f.state().song?.lyricIndex, 0);
    f.clock.advance(4000); // t=5: cue q1 plays c4
    assert.equal(f.clipState("c4"), "playing");
    assert.ok(f.events().includes("playstate:cue-fired"));
    f.clock.advance(3000); // t=8: cue q2 stops c4
    assert.equal(f.clipState("c4"), "stopped");
    assert.equal(f.state().song?.lyricIndex, 1);
    f.clock.advance(12_000); // t=20: the audio ends
    assert.equal(f.state().song?.state, "stopped");
    assert.equal(f.state().song?.position, 0);
    assert.equal((await f.run("PLAY_IN")).applied, true);
    assert.equal((await f.run("PLAY_IN")).applied, false);
  } finally {
    await f.close();
  }
});

Deno.test("STOP_IN stops the Song and every Clip; PLAY_TOGGLE_IN toggles", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    await f.run("PLAY_IN");
    assert.equal((await f.run("STOP_IN")).applied, true);
    assert.equal(f.state().clips.length, 0);
    assert.equal(f.state().song?.state, "stopped");
    assert.equal((await f.run("STOP_IN")).applied, false);
    await f.run("PLAY_TOGGLE_IN");
    assert.equal(f.state().song?.state, "playing");
    await f.run("PLAY_TOGGLE_IN");
    assert.equal(f.state().song?.state, "stopped");
  } finally {
    await f.close();
  }
});

Deno.test("PAUSE_IN and RESUME_IN keep positions; refuse when nothing applies", async () => {
  const f = await openFixture();
  try {
    await assert.rejects(f.run("PAUSE_IN"), Refusal);
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    f.clock.advance(2000);
    await f.run("PAUSE_IN", { clipID: "c1" });
    f.clock.advance(5000);
    assert.equal(f.clipState("c1"), "paused");
    assert.equal(f.state().clips[0]!.position, 2);
    await assert.rejects(f.run("PAUSE_IN", { clipID: "c3" }), /is not playing/);
    await assert.rejects(f.run("RESUME_IN", { clipID: "c3" }), /is not paused/);
    await f.run("RESUME_IN");
    f.clock.advance(1000);
    assert.equal(f.state().clips[0]!.position, 3);
    await assert.rejects(f.run("RESUME_IN"), /Nothing is paused/);
    await f.run("PAUSE_TOGGLE_IN");
    assert.equal(f.clipState("c1"), "paused");
    await f.run("PAUSE_TOGGLE_IN");
    assert.equal(f.clipState("c1"), "playing");
  } finally {
    await f.close();
  }
});

Deno.test("PLAY_CLIP_IN plays the selected Clip by default; non-looping Clips end", async () => {
  const f = await openFixture();
  try {
    assert.equal(f.state().selectedClipID, "c1");
    await f.run("PLAY_CLIP_IN");
    assert.equal(f.clipState("c1"), "playing");
    assert.equal((await f.run("PLAY_CLIP_IN", { clipID: "c1" })).applied, false);
    f.clock.advance(9999);
    assert.equal(f.clipState("c1"), "playing");
    f.clock.advance(1);
    assert.equal(f.clipState("c1"), "stopped");
    const ended = f.updates.find((u) =>
      u.data.event === "clip-play-state-changed" && u.data.reason === "ended"
    );
    assert.equal(ended?.data.newState, "stopped");
    assert.equal(ended?.data.clipID, "c1");
    await assert.rejects(f.run("PLAY_CLIP_IN", { clipID: "nope" }), /Clip "nope" does not exist/);
  } finally {
    await f.close();
  }
});

Deno.test("looping Clips wrap; OneShot ignores loop and ends", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_IN", { clipID: "c2" }); // Gate, loop, 4 s
    await f.run("PLAY_CLIP_IN", { clipID: "c5" }); // OneShot with loop set, 3 s
    f.clock.advance(5000);
    const c2 = f.state().clips.find((c) => c.clipID === "c2")!;
    assert.equal(c2.state, "playing");
    assert.equal(c2.position, 1);
    assert.equal(f.clipState("c5"), "stopped");
  } finally {
    await f.close();
  }
});

Deno.test("PLAY_CLIP_BY_INDEX_IN picks by zero-based index in the active or given Song", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_BY_INDEX_IN", { index: 2 });
    assert.equal(f.clipState("c3"), "playing");
    await f.run("PLAY_CLIP_BY_INDEX_IN", { index: 1, songID: "s2" });
    assert.equal(f.clipState("c6"), "playing");
    await assert.rejects(f.run("PLAY_CLIP_BY_INDEX_IN", { index: 4 }), /No Clip at index 4/);
  } finally {
    await f.close();
  }
});

Deno.test("TRIGGER_CLIP_IN follows launch mode and retrigger behavior", async () => {
  const f = await openFixture();
  try {
    // restart: position goes back to 0
    await f.run("TRIGGER_CLIP_IN", { clipID: "c1" });
    f.clock.advance(3000);
    await f.run("TRIGGER_CLIP_IN", { clipID: "c1" });
    assert.equal(f.state().clips.find((c) => c.clipID === "c1")!.position, 0);
    // ignore: keeps playing from where it is
    await f.run("TRIGGER_CLIP_IN", { clipID: "c4" });
    f.clock.advance(2000);
    assert.equal((await f.run("TRIGGER_CLIP_IN", { clipID: "c4" })).applied, false);
    assert.equal(f.state().clips.find((c) => c.clipID === "c4")!.position, 2);
    // stop: a second trigger stops it
    await f.run("TRIGGER_CLIP_IN", { clipID: "c6" });
    await f.run("TRIGGER_CLIP_IN", { clipID: "c6" });
    assert.equal(f.clipState("c6"), "stopped");
    // Toggle: on, then off
    await f.run("TRIGGER_CLIP_IN", { clipID: "c3" });
    assert.equal(f.clipState("c3"), "playing");
    await f.run("TRIGGER_CLIP_IN", { clipID: "c3" });
    assert.equal(f.clipState("c3"), "stopped");
  } finally {
    await f.close();
  }
});

Deno.test("TRIGGER_CLIP_IN with activateSong makes the Clip's Song active", async () => {
  const f = await openFixture();
  try {
    await f.run("TRIGGER_CLIP_IN", { clipID: "c6", activateSong: true });
    assert.equal(f.state().activeSongID, "s2");
    assert.equal(f.state().selectedClipID, "c6");
    await f.run("TRIGGER_CLIP_IN", { clipID: "c7" });
    assert.equal(f.state().activeSongID, "s2");
  } finally {
    await f.close();
  }
});

Deno.test("a Gate Clip plays while held; RELEASE_* does nothing for other modes", async () => {
  const f = await openFixture();
  try {
    await f.run("TRIGGER_CLIP_IN", { clipID: "c2" });
    assert.equal(f.state().clips[0]!.held, true);
    f.clock.advance(10_000);
    assert.equal(f.clipState("c2"), "playing");
    assert.equal((await f.run("RELEASE_CLIP_IN", { clipID: "c2" })).applied, true);
    assert.equal(f.clipState("c2"), "stopped");
    assert.equal((await f.run("RELEASE_CLIP_IN", { clipID: "c2" })).applied, false);

    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    const out = await f.run("RELEASE_CLIP_IN", { clipID: "c1" });
    assert.equal(out.applied, false);
    assert.match(out.message, /Trigger mode; release does nothing/);
    assert.equal(f.clipState("c1"), "playing");

    await f.run("PLAY_CLIP_BY_INDEX_IN", { index: 1 });
    await f.run("RELEASE_CLIP_BY_INDEX_IN", { index: 0 }); // the neighbour: c1, not Gate
    assert.equal(f.clipState("c2"), "playing");
    await f.run("RELEASE_CLIP_BY_INDEX_IN", { index: 1 });
    assert.equal(f.clipState("c2"), "stopped");
  } finally {
    await f.close();
  }
});

Deno.test("velocity is scaled by Velocity Sensitivity; omitted counts as full", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_IN", { clipID: "c6" }, 0); // sensitivity 1
    assert.equal(f.state().clips[0]!.gain, 0);
    await f.run("STOP_ALL_CLIPS_IN");
    await f.run("TRIGGER_CLIP_IN", { clipID: "c6" });
    assert.equal(f.state().clips[0]!.gain, 1);
    assert.equal(f.state().clips[0]!.velocity, 127);
    await f.run("RESTART_CLIP_IN", { clipID: "c1" }, 64); // sensitivity 0: no effect
    assert.equal(f.state().clips.find((c) => c.clipID === "c1")!.gain, 1);
    await f.run("RESTART_CLIP_IN", { clipID: "c6" }, 127 / 2);
    assert.equal(f.state().clips.find((c) => c.clipID === "c6")!.gain, 0.5);
  } finally {
    await f.close();
  }
});

Deno.test("RESTART_CLIP_IN restarts from the start; backward Clips start at the end", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_IN", { clipID: "c7" });
    f.clock.advance(4000);
    assert.equal(f.state().clips[0]!.position, 6);
    await f.run("RESTART_CLIP_IN", { clipID: "c7" });
    assert.equal(f.state().clips[0]!.position, 10);
    f.clock.advance(10_000);
    assert.equal(f.clipState("c7"), "stopped");
  } finally {
    await f.close();
  }
});

Deno.test("STOP_CLIP_IN and STOP_ALL_CLIPS_IN start the background Clip only when asked", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    await f.run("PLAY_CLIP_IN", { clipID: "c3" });
    await f.run("STOP_CLIP_IN", { clipID: "c1", maybePlayBackground: true });
    assert.equal(f.clipState("cbg"), "stopped", "another Clip still plays");
    await f.run("STOP_CLIP_IN", { clipID: "c3", maybePlayBackground: true });
    assert.equal(f.clipState("cbg"), "playing");
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    await f.run("STOP_ALL_CLIPS_IN");
    assert.equal(f.state().clips.length, 0);
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    await f.run("STOP_ALL_CLIPS_IN", { maybePlayBackground: true });
    assert.deepEqual(f.state().clips.map((c) => c.clipID), ["cbg"]);
    assert.equal((await f.run("STOP_CLIP_IN", { clipID: "c4" })).applied, false);
  } finally {
    await f.close();
  }
});

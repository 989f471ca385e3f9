import assert from "node:assert/strict";
import { type LiveState, stillKeyOf } from "../../player/live_state.ts";
import type { ProjectLive, VoiceLive } from "../../player/engine/live_snapshot.ts";

/** A live state of one Project, stopped, nothing recording. */
function state(savedAt: number, change: Partial<ProjectLive> = {}): LiveState {
  return {
    version: 1,
    savedAt,
    recording: { state: "idle", file: null, startedAt: null, ms: 0 },
    projects: {
      p1: {
        song: { songId: "s1", state: "stopped", position: 0 },
        selectedClipId: null,
        voices: [],
        live: { controls: { A: 0.5 }, params: {} },
        ...change,
      },
    },
    output: { volume: 1, muted: false },
    actionKeys: [],
  };
}

const voice = (state: VoiceLive["state"]): VoiceLive => ({
  clipId: "c1",
  state,
  position: 1.5,
  direction: "forward",
  loop: false,
  speed: 1,
  velocity: 1,
  gain: 1,
  held: false,
});

Deno.test("stillKeyOf: a still state's key leaves out its time stamp; anything that moves has none", () => {
  const key = stillKeyOf(state(1000));
  assert.notEqual(key, null);
  assert.equal(stillKeyOf(state(2000)), key, "only the time stamp differs: the same key");
  const control = stillKeyOf(state(1000, { live: { controls: { A: 0.6 }, params: {} } }));
  assert.notEqual(control, key, "a Control's value is part of it");
  assert.notEqual(stillKeyOf(state(1000, { voices: [voice("paused")] })), null, "paused is still");
  assert.equal(stillKeyOf(state(1000, { voices: [voice("playing")] })), null, "a playing Clip");
  const song = { songId: "s1", state: "playing" as const, position: 3 };
  assert.equal(stillKeyOf(state(1000, { song })), null, "a playing Song");
  const recording = state(1000);
  recording.recording = {
    state: "recording",
    file: "recordings/recording-1.jsonl",
    startedAt: "2026-11-30T07:00:00Z",
    ms: 10,
  };
  assert.equal(stillKeyOf(recording), null, "a recording that runs");
});

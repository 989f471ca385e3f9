import assert from "node:assert/strict";
import { advancePosition, playStateAt } from "../../protocol/positions.ts";
import type { PlayState } from "../../protocol/state.ts";

Deno.test("advancePosition() moves by speed and direction, wraps loops, clamps the rest", () => {
  const motion = { speed: 2, direction: "forward" as const, duration: 10, loop: false };
  assert.equal(advancePosition(1, 2, motion), 5);
  assert.equal(advancePosition(8, 5, motion), 10);
  assert.equal(advancePosition(8, 5, { ...motion, loop: true }), 8);
  assert.equal(advancePosition(3, 1, { ...motion, direction: "backward" }), 1);
  assert.equal(advancePosition(1, 1, { ...motion, direction: "backward", loop: true }), 9);
});

Deno.test("playStateAt() extrapolates playing Clips and the Song, and leaves paused ones", () => {
  const state: PlayState = {
    projectId: "p",
    at: 1000,
    activeSongID: "s",
    selectedClipID: null,
    song: { songID: "s", state: "playing", position: 4, duration: 5, lyricIndex: -1 },
    clips: [
      {
        clipID: "a",
        songID: "s",
        state: "playing",
        position: 1,
        duration: 10,
        direction: "forward",
        loop: false,
        speed: 1,
        velocity: 127,
        gain: 1,
        held: false,
      },
      {
        clipID: "b",
        songID: "s",
        state: "paused",
        position: 3,
        duration: 10,
        direction: "forward",
        loop: false,
        speed: 1,
        velocity: 127,
        gain: 1,
        held: false,
      },
    ],
  };
  const later = playStateAt(state, 3000);
  assert.equal(later.at, 3000);
  assert.equal(later.song!.position, 5, "clamped at the Song's end");
  assert.deepEqual(later.clips.map((c) => c.position), [3, 3]);
  assert.equal(playStateAt(state, 500), state, "never moves backward");
});

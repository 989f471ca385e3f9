/**
 * Actions run after their time (protocol 1.14, `due` in `action.run`, `player/actions/late.ts`):
 * through the player's own `action.run` handler, on a virtual clock that is also the machine's
 * clock the `due` is read on. A Clip started 50 ms late is at 50 ms x its speed, in its direction;
 * on time (or with no `due`) at its start; more than 5 s late at its start, and counted; a Song
 * started late is where it would be, its cues passed meanwhile fired.
 */
import assert from "node:assert/strict";
import { openFixture } from "../../../tools/testing/fixture.ts";
import { playerMethods, type Session } from "../../../player/rpc_methods.ts";
import { Method } from "../../../protocol/methods.ts";
import type { ActionOutcome } from "../../../protocol/methods.ts";
import { LateActions } from "../../../player/actions/late.ts";

/** The fixture's player, its `action.run` reading `due` on the fixture's virtual clock. */
async function latePlayer() {
  const f = await openFixture();
  const session = { isInitialized: true, figures: () => ({}) } as unknown as Session;
  const lates = new LateActions();
  const methods = playerMethods(f.app, session, {
    wallClock: () => f.clock.now(),
    lateActions: lates,
  });
  /** `action.run` of `name` due `lateMs` ago (no `due` when undefined). */
  const run = async (name: string, params: Record<string, unknown>, lateMs?: number) => {
    const due = lateMs === undefined ? {} : { due: f.clock.now() - lateMs };
    return await methods[Method.ACTION_RUN]!(
      { name, params, projectId: null, ...due },
      { id: 1, progress: () => {}, signal: new AbortController().signal },
    ) as ActionOutcome;
  };
  const position = (id: string) => f.state().clips.find((c) => c.clipID === id)!.position;
  return { f, run, position, lates };
}

Deno.test("action.run with due: a Clip started 50 ms late is at 50 ms x speed, in its direction", async () => {
  const { f, run, position, lates } = await latePlayer();
  try {
    f.clock.advance(10_000);
    const out = await run("TRIGGER_CLIP_IN", { clipID: "c1" }, 50);
    assert.equal(position("c1"), 0.05);
    assert.match(
      out.message,
      /^Clip "c1" triggered \(Trigger\) \(50 ms late: what it started is where it would be\)$/,
    );
    // Twice the speed: twice as far. Backward: from its end.
    await run("SET_PARAM", { targetID: "clip:c3/speed", value: 2 });
    await run("TRIGGER_CLIP_IN", { clipID: "c3" }, 50);
    assert.equal(position("c3"), 0.1);
    await run("PLAY_CLIP_IN", { clipID: "c7" }, 50);
    assert.equal(position("c7"), 10 - 0.05);
    f.clock.advance(1000);
    assert.equal(position("c1"), 1.05, "it plays on from there");
    assert.deepEqual([lates.caughtUp, lates.tooLate], [3, 0]);
  } finally {
    await f.close();
  }
});

Deno.test("action.run with due: on time or without due at the start; more than 5 s late at the start, counted", async () => {
  const { f, run, position, lates } = await latePlayer();
  try {
    f.clock.advance(10_000);
    const onTime = await run("TRIGGER_CLIP_IN", { clipID: "c1" }, 0);
    assert.equal(position("c1"), 0);
    assert.equal(onTime.message, 'Clip "c1" triggered (Trigger)', "no note on time");
    await run("TRIGGER_CLIP_IN", { clipID: "c4" });
    assert.equal(position("c4"), 0, "no due: now");
    await run("PLAY_CLIP_IN", { clipID: "c7" }, -30);
    assert.equal(position("c7"), 10, "a due a hair ahead: on time");
    const tooLate = await run("RESTART_CLIP_IN", { clipID: "c1" }, 5001);
    assert.equal(position("c1"), 0);
    assert.match(
      tooLate.message,
      /\(5001 ms late, more than 5000 ms: what it started starts from the beginning\)$/,
    );
    assert.deepEqual([lates.caughtUp, lates.tooLate], [0, 1]);
    // Exactly the bound still catches up.
    await run("RESTART_CLIP_IN", { clipID: "c1" }, 5000);
    assert.equal(position("c1"), 5);
  } finally {
    await f.close();
  }
});

Deno.test("action.run with due: a Song started late is where it would be; a resume too", async () => {
  const { f, run, position } = await latePlayer();
  try {
    f.clock.advance(10_000);
    await run("PLAY_IN", {}, 120);
    assert.equal(f.state().song?.position, 0.12);
    await run("PLAY_CLIP_IN", { clipID: "c1" });
    f.clock.advance(1000);
    await run("PAUSE_IN", {});
    assert.equal(position("c1"), 1);
    await run("RESUME_IN", {}, 40);
    assert.equal(position("c1"), 1.04);
    assert.ok(Math.abs(f.state().song!.position - 1.16) < 1e-9, `${f.state().song!.position}`);
  } finally {
    await f.close();
  }
});

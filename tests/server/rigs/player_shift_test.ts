/**
 * The player's clock kept on the show clock (`server/rigs/player_shift.ts`, and the player's
 * `FollowingClock`): once the show clock synced, the player is sent how far its offset moved
 * since, so Clips and frames on the player's clock run at the show time's rate. Virtual clocks.
 */
import assert from "node:assert/strict";
import { FollowingClock, VirtualClock } from "../../../player/clock.ts";
import { RpcError, RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { ShowClock } from "../../../server/rigs/clock/show_clock.ts";
import { PlayerShift } from "../../../server/rigs/player_shift.ts";

/** A player that records the shifts it is sent, answering with `answer`. */
function player(answer: (shiftMs: number) => Promise<number | null> = (ms) => Promise.resolve(ms)) {
  const sent: number[] = [];
  return {
    sent,
    frameLagMs: () => null,
    shiftClock: (shiftMs: number) => {
      sent.push(shiftMs);
      return answer(shiftMs);
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("PlayerShift.look() sends the show clock's offset moved since it synced", async () => {
  const local = new VirtualClock(10_000);
  const show = new ShowClock(local);
  const p = player();
  const lines: string[] = [];
  const shift = new PlayerShift(show, local, p, (level, line) => lines.push(`${level}: ${line}`));
  shift.look();
  assert.deepEqual(p.sent, [], "nothing before the show clock synced");
  show.correct(-250, 0.1); // the first correction steps: the player's clock is not moved by it
  shift.look();
  await settle();
  assert.deepEqual(p.sent, [0]);
  // The leader's clock runs 100 ppm fast: a correction of 0.1 ms a second, slewed (5%: in 2 ms).
  local.advance(1000);
  show.correct(-249.9, 0.1);
  local.advance(10);
  shift.look();
  await settle();
  assert.equal(p.sent.length, 2);
  assert.ok(Math.abs(p.sent[1]! - 0.1) < 1e-9, `${p.sent}`);
  // Not moved: not sent again until two seconds passed (a restarted player gets it then).
  shift.look();
  await settle();
  assert.equal(p.sent.length, 2);
  local.advance(2000);
  shift.look();
  await settle();
  assert.equal(p.sent.length, 3);
  assert.equal(shift.shiftMs, p.sent[2]);
  assert.deepEqual(lines, []);
  show.close();
});

Deno.test("PlayerShift.look() stops at a player without clock.shift, and retries a player down", async () => {
  const local = new VirtualClock();
  const show = new ShowClock(local);
  show.lead();
  let error: Error = new Error("The player is not ready");
  let isThrown = true; // as the core's requireReady() throws before the request is a promise
  const p = player(() => {
    if (isThrown) throw error;
    return Promise.reject(error);
  });
  const lines: string[] = [];
  const shift = new PlayerShift(show, local, p, (level, line) => lines.push(`${level}: ${line}`));
  shift.look();
  await settle();
  shift.look();
  await settle();
  assert.equal(p.sent.length, 2, "a player down: sent again at the next look");
  isThrown = false;
  error = new RpcError(RpcErrorCode.METHOD_NOT_FOUND, "Method not found");
  shift.look();
  await settle();
  shift.look();
  await settle();
  assert.equal(p.sent.length, 3, "a 1.14 player: not asked again");
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^warn: The player has no clock\.shift/);
  show.close();
});

Deno.test("FollowingClock takes its first shift as its base, then slews each change at 5%", () => {
  const base = new VirtualClock(1000);
  const clock = new FollowingClock(base);
  assert.equal(clock.now(), 1000);
  // A restarted player told the shift of hours (100 ppm x 10 h): its base, no jump.
  clock.shift(3600);
  assert.deepEqual([clock.now(), clock.shiftMs], [1000, 3600]);
  clock.shift(3610); // 10 ms more: run 5% fast for 200 ms, never a step
  base.advance(100);
  assert.equal(clock.now(), 1105);
  base.advance(100);
  assert.equal(clock.now(), 1210);
  base.advance(100);
  assert.equal(clock.now(), 1310, "then at its base's rate");
  clock.shift(3590); // 20 ms down: 5% slow for 400 ms, never still, never back
  base.advance(200);
  assert.equal(clock.now(), 1500);
  base.advance(400);
  assert.equal(clock.now(), 1890);
  assert.throws(() => clock.shift(NaN), RangeError);
});

Deno.test("FollowingClock steps a change of shift above half a second: forward, or held still", () => {
  const base = new VirtualClock(0);
  const clock = new FollowingClock(base);
  clock.shift(0);
  clock.shift(800);
  assert.equal(clock.now(), 800);
  clock.shift(0); // down 800 ms: held still until its base catches up
  const fired: number[] = [];
  clock.setTimer(700, () => fired.push(base.now()));
  base.advance(0);
  assert.deepEqual(fired, [0], "a timer due on the clock held still fires at once");
  base.advance(799);
  assert.equal(clock.now(), 800);
  base.advance(11);
  assert.equal(clock.now(), 810);
});

Deno.test("FollowingClock fires a timer when the shifted clock reaches it, never before", () => {
  const base = new VirtualClock(0);
  const clock = new FollowingClock(base);
  clock.shift(0);
  const fired: number[] = [];
  clock.setTimer(100, () => fired.push(clock.now()));
  clock.setTimer(400, () => fired.push(clock.now()));
  const cleared = clock.setTimer(300, () => fired.push(-1));
  clock.shift(-30); // a shift down after the timers were armed: they must not fire early
  base.advance(100);
  assert.deepEqual(fired, []);
  base.advance(10);
  assert.equal(fired.length, 1);
  assert.ok(Math.abs(fired[0]! - 100) < 1e-6, `${fired}`);
  clock.clearTimer(cleared);
  clock.shift(600); // stepped forward past 400: due at once
  base.advance(0);
  assert.equal(fired.length, 2);
  assert.ok(fired[1]! >= 400, `${fired}`);
  assert.equal(base.pendingTimers, 0, "nothing left armed");
});

import assert from "node:assert/strict";
import { VirtualClock } from "../../../../player/clock.ts";
import { CueportError } from "../../../../server/core/mod.ts";
import { ShowClock, skewedClock } from "../../../../server/rigs/clock/mod.ts";

const near = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) < 1e-6, `${what}: ${a} vs ${b}`);

Deno.test("ShowClock.correct() steps the first correction and any beyond the threshold", () => {
  const local = new VirtualClock(1000);
  const show = new ShowClock(local, { stepThresholdMs: 128 });
  assert.equal(show.isSynced, false);
  assert.equal(show.error, Infinity);
  assert.equal(show.correct(250, 0.4), "step");
  near(show.now(), 1250, "stepped at once");
  assert.equal(show.error, 0.4);
  local.advance(1000);
  assert.equal(show.correct(250 + 500, 0.4), "step");
  near(show.now(), 2750, "a large correction steps too");
  assert.deepEqual(show.corrections, { steps: 2, slews: 0 });
});

Deno.test("ShowClock.correct() slews a small correction: never backward, at most 5% off, then agrees", () => {
  const local = new VirtualClock(0);
  const show = new ShowClock(local, { maxSlewRate: 0.05, driftPpm: 0 });
  show.correct(250, 0.1);
  assert.equal(show.correct(240, 0.1), "slew");
  // 10 ms at 5%: 200 ms of slewing, show time running at 0.95.
  near(show.error, 10.1, "what is left to slew counts in the error");
  let last = show.now();
  for (let t = 1; t <= 300; t++) {
    local.advance(1);
    const now = show.now();
    assert.ok(now - last >= 0.95 - 1e-9 && now - last <= 1 + 1e-9, `step at ${t}: ${now - last}`);
    last = now;
  }
  near(show.offset, 240, "the correction is done");
  near(show.error, 0.1, "the error is the measurement's again");
  near(local.now() - 100 + show.offset, show.at(local.now() - 100), "at() after the slew");
});

Deno.test("ShowClock.toLocal() is at()'s inverse, before, during and after a slew", () => {
  const local = new VirtualClock(5000);
  const show = new ShowClock(local);
  show.correct(-30, 1);
  show.correct(-10, 1); // 20 ms ahead at 5%: 400 ms
  for (const t of [4000, 5000, 5001, 5200, 5399.5, 5400, 5401, 9000]) {
    near(show.toLocal(show.at(t)), t, `local ${t}`);
  }
});

Deno.test("ShowClock.scheduleAt() runs at the show time, re-armed when a correction moves it", () => {
  const local = new VirtualClock(0);
  const show = new ShowClock(local);
  show.correct(1000, 0.2);
  const ran: number[] = [];
  show.scheduleAt(1120, () => ran.push(show.now()));
  show.scheduleAt(1500, () => ran.push(show.now()));
  local.advance(50);
  show.correct(1040, 0.2); // 40 ms ahead: slewed, so the actions run earlier on the local clock
  local.advance(1000);
  assert.equal(ran.length, 2);
  near(ran[0]!, 1120, "first");
  near(ran[1]!, 1500, "second");
  assert.equal(show.pendingCount, 0);
  assert.equal(local.pendingTimers, 0);
  show.scheduleAt(0, () => ran.push(-1)); // already past: at once
  local.advance(0);
  assert.equal(ran.at(-1), -1);
});

Deno.test("ShowClock.scheduleAt() on two rigs 250 ms apart runs both at one true time", () => {
  const truth = new VirtualClock(10_000);
  const leaderLocal = truth;
  const followerLocal = skewedClock(truth, -250); // its clock reads 250 ms behind
  const leader = new ShowClock(leaderLocal);
  const follower = new ShowClock(followerLocal);
  leader.lead();
  // What the exchange measures: the leader's show time minus the follower's clock.
  follower.correct(leader.now() - followerLocal.now(), 0.3);
  const at = leader.now() + 120;
  const ran: Array<[string, number]> = [];
  leader.scheduleAt(at, () => ran.push(["leader", truth.now()]));
  follower.scheduleAt(at, () => ran.push(["follower", truth.now()]));
  truth.advance(200);
  assert.deepEqual(ran.map(([who]) => who).sort(), ["follower", "leader"]);
  near(ran[0]![1], ran[1]![1], "the same true time");
  near(ran[0]![1], 10_120, "120 ms ahead");
});

Deno.test("ShowClock.lead() keeps the mapping with no error; a cancelled or closed action never runs", () => {
  const local = new VirtualClock(0);
  const show = new ShowClock(local, { maxPending: 2 });
  show.correct(77, 3);
  show.lead();
  assert.equal(show.error, 0);
  near(show.offset, 77, "kept");
  local.advance(10_000);
  assert.equal(show.error, 0, "the reference does not drift from itself");
  assert.equal(show.isLeading, true);
  let ran = 0;
  const cancel = show.scheduleAt(200, () => ran++);
  show.scheduleAt(300, () => ran++);
  assert.throws(
    () => show.scheduleAt(400, () => ran++),
    (e) => e instanceof CueportError && e.code === "RATE_LIMITED",
  );
  cancel();
  show.close();
  local.advance(1000);
  assert.equal(ran, 0);
  assert.equal(local.pendingTimers, 0);
  assert.throws(() => new ShowClock(local, { maxSlewRate: 1 }), RangeError);
});

/** `clock` with `setTimeout`'s limit: a timer more than 2^31 - 1 ms ahead fires at once. */
function setTimeoutLike(clock: VirtualClock) {
  const asked: number[] = [];
  return {
    asked,
    local: {
      now: () => clock.now(),
      setTimer: (at: number, fn: () => void) => {
        asked.push(at - clock.now());
        return clock.setTimer(at - clock.now() > 2 ** 31 - 1 ? clock.now() : at, fn);
      },
      clearTimer: (id: unknown) => clock.clearTimer(id),
    },
  };
}

Deno.test("ShowClock.scheduleAt() waits past setTimeout's 2^31 ms limit, re-armed in chunks", () => {
  const clock = new VirtualClock(0);
  const { local, asked } = setTimeoutLike(clock);
  const show = new ShowClock(local, { horizonMs: 60 * 86_400_000 });
  show.lead();
  const day = 86_400_000;
  const ran: number[] = [];
  show.scheduleAt(40 * day, () => ran.push(show.now()));
  clock.advance(0);
  assert.deepEqual(ran, [], "not at once");
  clock.advance(39 * day);
  assert.deepEqual(ran, []);
  clock.advance(day);
  assert.deepEqual(ran, [40 * day]);
  assert.ok(asked.every((ms) => ms <= 2 ** 31 - 1), `timers asked: ${asked}`);
  assert.equal(show.pendingCount, 0);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("ShowClock.scheduleAt() refuses a show time beyond its horizon or not finite", () => {
  const clock = new VirtualClock(1000);
  const show = new ShowClock(clock);
  show.lead();
  const refused = (e: unknown) =>
    e instanceof CueportError && e.code === "INVALID_MESSAGE" &&
    /at most 3600000 ms ahead/.test(e.message);
  assert.throws(() => show.scheduleAt(1000 + 3_600_001, () => {}), refused);
  for (const bad of [NaN, Infinity, -Infinity]) {
    assert.throws(() => show.scheduleAt(bad, () => {}), refused);
  }
  assert.equal(show.pendingCount, 0);
  let ran = 0;
  show.scheduleAt(1000 + 3_600_000, () => ran++); // at the horizon: taken
  clock.advance(3_600_000);
  assert.equal(ran, 1);
});

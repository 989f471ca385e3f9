/**
 * The output's frame lag (docs/rigs.md, Outputs on the show clock), in a real browser: the page's
 * reports say how far its frames lag the player's clock (the mean and the worst |lag|), and when
 * the player's clock is shifted (as a rig group's show clock moves it, `clock.shift`, slewed) the
 * frames lag by about the shift (less than twice it), then slew back within half a frame. One
 * headless Chromium.
 */
import assert from "node:assert/strict";
import { FollowingClock, MonotonicClock } from "../../../player/clock.ts";
import { openOutputPlayer, untilOutput } from "../../_helpers/output.ts";

const HALF_FRAME = 1000 / 30 / 2; // the test Project is 30 fps

Deno.test("the page reports its frames' lag, which follows a shift of the player's clock", async () => {
  const clock = new FollowingClock(new MonotonicClock());
  const p = await openOutputPlayer({ clock });
  try {
    const lagOf = (i: number) => p.output.reports[i]?.frameLagMaxMs;
    await untilOutput(p.output, "a report with its frames' lag", () => {
      const lag = p.output.reports.at(-1)?.frameLagMs;
      return typeof lag === "number" && Number.isFinite(lag);
    });
    assert.equal(p.output.stats.frameLagMs, p.output.reports.at(-1)!.frameLagMs);
    assert.equal(p.output.stats.frameLagMaxMs, p.output.reports.at(-1)!.frameLagMaxMs);
    clock.shift(0); // the first shift is the clock's base
    const from = p.output.reports.length;
    clock.shift(60); // slewed by the player's clock (5%, 1.2 s), the page's estimate jumps
    let behind = -1;
    await untilOutput(p.output, "a report of frames behind the shifted clock", () => {
      for (let i = from; i < p.output.reports.length; i++) {
        if ((lagOf(i) ?? 0) > HALF_FRAME) behind = i;
      }
      return behind >= 0;
    });
    // The frames lag by the shift, give or take the page's estimate of the clock (half its ping's
    // round trip, tens of ms on a busy machine) and the deadband: less than twice the shift says
    // the shift was counted once (a page that added it twice lags 120 ms and more).
    assert.ok(lagOf(behind)! < 2 * 60, `lags ${lagOf(behind)} ms, less than twice the shift`);
    await untilOutput(p.output, "the frames caught up within half a frame", () => {
      const last = p.output.reports.length - 1;
      return last > behind && (lagOf(last) ?? Infinity) < HALF_FRAME;
    });
    const lags = p.output.reports.slice(from).map((r) => r.frameLagMaxMs);
    console.log(`worst frame lags after a 60 ms shift, a report a second: ${lags.join(", ")} ms`);
  } finally {
    await p.close();
  }
});

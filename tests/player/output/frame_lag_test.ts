/**
 * The output's frame lag (docs/rigs.md, Outputs on the show clock), in a real browser: the page's
 * reports say how far its frames lag the player's clock (the mean and the worst |lag|) and how far
 * the page's estimate of that clock may be off (`clockErrorMs`); when the player's clock is
 * shifted (as a rig group's show clock moves it, `clock.shift`, slewed) the frames lag by the
 * shift, give or take the errors the page reported and the deadband, then slew back within half a
 * frame. One headless Chromium.
 */
import assert from "node:assert/strict";
import { FollowingClock, MonotonicClock } from "../../../player/clock.ts";
import type { PageReport } from "../../../player/output/frame_reports.ts";
import { openOutputPlayer, untilOutput } from "../../../tools/testing/output.ts";

const HALF_FRAME = 1000 / 30 / 2; // the test Project is 30 fps
const SHIFT = 60;

/** The worst clock error the reports said (null: a second with no frame, so no lag either). */
function worstError(reports: readonly PageReport[]): number {
  return Math.max(0, ...reports.flatMap((r) => r.clockErrorMs ?? []));
}

Deno.test("the page reports its frames' lag, which follows a shift of the player's clock", async () => {
  const clock = new FollowingClock(new MonotonicClock());
  const p = await openOutputPlayer({ clock });
  try {
    const lagOf = (i: number) => p.output.reports[i]?.frameLagMaxMs;
    // The page's first pings come back late while it loads (seconds at load 45-57); the best of
    // its last eight is soon a short one. A shift measured against an estimate off by more than
    // the deadband would say little, and frames not yet caught up add their lag to the shift's
    // (249 ms in the second before the shift at load 45).
    await untilOutput(p.output, "a report of frames on a settled clock", () => {
      const last = p.output.reports.at(-1);
      return (last?.frameLagMaxMs ?? Infinity) < HALF_FRAME &&
        (last?.clockErrorMs ?? Infinity) <= HALF_FRAME;
    });
    const last = p.output.reports.at(-1)!;
    assert.equal(p.output.stats.frameLagMs, last.frameLagMs);
    assert.equal(p.output.stats.frameLagMaxMs, last.frameLagMaxMs);
    assert.ok(last.clockErrorMs! >= 0, `a clock error of ${last.clockErrorMs} ms`);
    clock.shift(0); // the first shift is the clock's base
    const from = p.output.reports.length;
    clock.shift(SHIFT); // slewed by the player's clock (5%, 1.2 s), the page's estimate jumps
    let behind = -1;
    await untilOutput(p.output, "a report of frames behind the shifted clock", () => {
      for (let i = from; i < p.output.reports.length; i++) {
        if ((lagOf(i) ?? 0) > HALF_FRAME) behind = i;
      }
      return behind >= 0;
    });
    // A frame lags the page's estimate of the clock, which jumped by the shift plus the error of
    // the estimate after and less that of the one before (each within half its ping's round trip,
    // as the reports said: the one after rests on one ping, tens of ms off on a busy machine),
    // plus the deadband the frames were within before. Twice the shift was 120 ms and more.
    const reports = p.output.reports.slice(from - 1, behind + 1);
    const bound = SHIFT + worstError(reports.slice(0, 1)) + worstError(reports) + HALF_FRAME;
    assert.ok(lagOf(behind)! <= bound, `lags ${lagOf(behind)} ms, more than ${bound} ms`);
    await untilOutput(p.output, "the frames caught up within half a frame", () => {
      const last = p.output.reports.length - 1;
      return last > behind && (lagOf(last) ?? Infinity) < HALF_FRAME;
    });
    const after = p.output.reports.slice(from - 1);
    console.log(
      `worst frame lags after a ${SHIFT} ms shift, a report a second (the first before it), ` +
        `each with its clock's error in brackets: ${
          after.map((r) => `${r.frameLagMaxMs} (${r.clockErrorMs})`)
        } ms`,
    );
  } finally {
    await p.close();
  }
});

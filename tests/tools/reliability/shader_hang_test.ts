/**
 * Issue 42: the `shader_hang` probe's watch ends on an event (a quarantine, the output drawing
 * again) or on the browser's work, never on a window of wall-clock time alone: beside `stress-ng`
 * a starved browser took over 60 s to use the CPU its player judges a stall by, and the watch
 * gave up before the quarantine came.
 */
import assert from "node:assert/strict";
import {
  NO_PROGRESS_CEILING_MS,
  NO_PROGRESS_CPU_MS,
  NO_PROGRESS_MS,
  SETTLED_AFTER_MS,
  SettleWatch,
  type WatchLook,
} from "../../../tools/reliability/shader_hang.ts";

/** Looks a second apart from `from` s: the browser uses `cpuPerS` ms of CPU a second. */
function feed(
  watch: SettleWatch,
  from: number,
  to: number,
  look: (s: number) => Partial<WatchLook>,
  cpuPerS: number | null,
): { at: number; outcome: "settled" | "gave up" } | null {
  for (let s = from; s <= to; s++) {
    const outcome = watch.look({
      at: s * 1000,
      isQuarantined: false,
      starts: 1,
      frames: 100,
      browserCpuMs: cpuPerS === null ? null : s * cpuPerS,
      ...look(s),
    });
    if (outcome) return { at: s, outcome };
  }
  return null;
}

Deno.test("a starved browser's frozen output is watched past 60 s until its quarantine, then settles", () => {
  const watch = new SettleWatch(0);
  // Frozen from the edit; the browser gets 150 ms of CPU a second (load average 28 on 2 cores):
  // 80 s of it use 12 s of CPU, short of the work bound, so the watch waits.
  assert.equal(feed(watch, 0, 80, () => ({}), 150), null);
  assert.ok(80_000 > NO_PROGRESS_MS && 80 * 150 < NO_PROGRESS_CPU_MS);
  // The quarantine comes at 85 s, the new browser's page draws from 100 s on.
  const end = feed(watch, 81, 200, (s) => ({
    isQuarantined: s >= 85,
    starts: s >= 90 ? 2 : 1,
    frames: s >= 100 ? s - 99 : s >= 90 ? null : 100,
  }), 150);
  assert.deepEqual(end, { at: 102, outcome: "settled" }); // 100: the first count; 101, 102: growing
  assert.equal(watch.isDrawing, true);
});

Deno.test("a frozen output with nothing quarantined is given up once the browser did the work", () => {
  const watch = new SettleWatch(0);
  // A browser using both cores: 60 s pass first, and with them far more than the CPU bound.
  assert.deepEqual(feed(watch, 0, 120, () => ({}), 2000), { at: 60, outcome: "gave up" });
});

Deno.test("a stopped browser (no CPU used) is given up at the ceiling; unknown CPU at 60 s", () => {
  assert.deepEqual(
    feed(new SettleWatch(0), 0, 400, () => ({}), 0),
    { at: NO_PROGRESS_CEILING_MS / 1000, outcome: "gave up" },
  );
  assert.deepEqual(feed(new SettleWatch(0), 0, 400, () => ({}), null), {
    at: NO_PROGRESS_MS / 1000,
    outcome: "gave up",
  });
});

Deno.test("quarantined and drawing settles no sooner than 8 s after the edit", () => {
  const watch = new SettleWatch(0);
  const end = feed(watch, 0, 30, (s) => ({ isQuarantined: s >= 2, frames: 100 + s }), 1000);
  assert.deepEqual(end, { at: SETTLED_AFTER_MS / 1000, outcome: "settled" });
});

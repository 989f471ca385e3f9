/**
 * Issue 42: the `shader_hang` probe's watch ends on an event (a quarantine, the output drawing
 * again) or on the browser's work, never on a window of wall-clock time alone: beside `stress-ng`
 * a starved browser took over 60 s to use the CPU its player judges a stall by, and the watch
 * gave up before the quarantine came.
 */
import assert from "node:assert/strict";
import {
  DRAWS_AGAIN_WITHIN_MS,
  frozenCpuLimitMs,
  NO_PROGRESS_CEILING_MS,
  NO_PROGRESS_CPU_MS,
  NO_PROGRESS_MS,
  SETTLED_AFTER_MS,
  SettleWatch,
  type WatchLook,
} from "../../../tools/reliability/shader_hang.ts";

/**
 * Looks a second apart from `from` s: the browser uses `cpuPerS` ms of CPU a second, and the
 * machine's cores lie idle `idlePerS` ms a second (none: a busy machine).
 */
function feed(
  watch: SettleWatch,
  from: number,
  to: number,
  look: (s: number) => Partial<WatchLook>,
  cpuPerS: number | null,
  idlePerS = 0,
): { at: number; outcome: "settled" | "gave up" } | null {
  for (let s = from; s <= to; s++) {
    const outcome = watch.look({
      at: s * 1000,
      isQuarantined: false,
      starts: 1,
      frames: 100,
      browserCpuMs: cpuPerS === null ? null : s * cpuPerS,
      idleCpuMs: s * idlePerS,
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
  // 101 s without a new frame (to the look at 101 that saw one) at 150 ms of CPU a second, no
  // core idle: 15.2 s of CPU, within 10 s of two cores' time however long it took.
  assert.equal(watch.longestFrozenCpuMs, 101 * 150);
  assert.ok(watch.longestFrozenCpuMs! < frozenCpuLimitMs(2));
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

Deno.test("draws again within 10 s of the machine's CPU: a quiet machine's endless loop, quarantined at once, meets it", () => {
  const watch = new SettleWatch(0);
  // Both cores on the looping shader for 6 s, then a new browser draws from 7 s on.
  feed(
    watch,
    0,
    12,
    (s) => ({ isQuarantined: s >= 6, frames: s >= 7 ? s : s === 0 ? 1 : 0 }),
    2000,
  );
  assert.equal(watch.longestFrozenCpuMs, 7 * 2000);
  assert.ok(watch.longestFrozenCpuMs! < frozenCpuLimitMs(2));
  assert.equal(frozenCpuLimitMs(2), 2 * DRAWS_AGAIN_WITHIN_MS);
});

Deno.test("draws again within 10 s of the machine's CPU: a browser stuck without working on an idle machine misses it", () => {
  const watch = new SettleWatch(0);
  // 15 s without a frame, the browser using nothing while both cores lie idle: the CPU it could
  // have had counts, so a freeze that is no starvation misses as a wall-clock limit would.
  feed(watch, 0, 20, (s) => ({ frames: s >= 15 ? s : 1 }), 0, 2000);
  assert.equal(watch.longestFrozenCpuMs, 15 * 2000);
  assert.ok(watch.longestFrozenCpuMs! >= frozenCpuLimitMs(2));
});

Deno.test("the frozen output's CPU is unknown (null) when the browser's or the machine's is", () => {
  const watch = new SettleWatch(0);
  feed(watch, 0, 10, () => ({}), null, 2000);
  assert.equal(watch.longestFrozenCpuMs, null);
  const idleUnknown = new SettleWatch(0);
  feed(idleUnknown, 0, 10, () => ({ idleCpuMs: null }), 1000);
  assert.equal(idleUnknown.longestFrozenCpuMs, null);
});

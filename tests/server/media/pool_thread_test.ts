/**
 * A picture worker busy in a synchronous decode turns no event loop, so it reports no progress;
 * on a busy machine at its lowered priority one decode can outlast two looks of its watch (issue
 * 42: ended in 3 of 5 rounds at load 57). The pool then looks at the worker's thread with `ps`:
 * one that runs, or used CPU since the last look, is watched on; one that sleeps and used none is
 * ended. Stand-in workers (`_gated_render_worker.ts`) hold their thread until the test lets them
 * go, on a virtual clock; the pool runs with the service's permissions (no /proc for Deno).
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/clock.ts";
import { CueportError } from "../../../server/core/mod.ts";
import { RenderPool, type RenderPoolHooks } from "../../../server/media/pool.ts";
import { psSeconds } from "../../../server/media/pool_thread.ts";
import { source } from "./render/_fixtures.ts";

type Check = Parameters<NonNullable<RenderPoolHooks["threadChecked"]>>[0];

/** A pool of one gated stand-in worker, and what its hooks tell, as promises to wait on. */
function gatedPool(mode: "busy" | "hung") {
  const clock = new VirtualClock();
  const started = Promise.withResolvers<void>();
  let checked = Promise.withResolvers<Check>();
  const pool = new RenderPool({
    clock,
    stallMs: 1000,
    localLane: false,
    workerUrl: new URL(`_gated_render_worker.ts?${mode}`, import.meta.url).href,
    hooks: {
      jobStarted: () => started.resolve(),
      threadChecked: (check) => checked.resolve(check),
    },
  });
  const gate = new Int32Array(new SharedArrayBuffer(8));
  const job = {
    type: "waveform" as const,
    source: source("/nonexistent.wav", "audio"),
    width: 64,
    height: 16,
    ffmpeg: null,
    gate: gate.buffer,
  };
  const asked = pool.render(job).catch((e) => e as Error);
  /** Once the job runs and the stand-in holds its thread (so `ps` sees it spin or sleep). */
  const holding = started.promise.then(() => Atomics.waitAsync(gate, 1, 0).value);
  /** Two quiet looks; then the thread check's outcome, or the job's if it settled first. */
  const twoLooks = async (): Promise<Check | { settled: unknown }> => {
    checked = Promise.withResolvers<Check>();
    clock.advance(1000);
    clock.advance(1000);
    return await Promise.race([checked.promise, asked.then((settled) => ({ settled }))]);
  };
  const open = () => {
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
  };
  return { pool, holding, asked, twoLooks, open };
}

Deno.test({
  name: "RenderPool: a worker that reports nothing while its thread uses the CPU is not ended",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const { pool, holding, asked, twoLooks, open } = gatedPool("busy");
    try {
      await holding;
      for (let round = 0; round < 2; round++) {
        const check = await twoLooks();
        if (!("isWorking" in check)) {
          assert.fail(`round ${round}: the job ended: ${String(check.settled)}`);
        }
        assert.equal(check.isWorking, true, `round ${round}: ${JSON.stringify(check)}`);
      }
      open();
      const made = await asked;
      assert.equal((made as { origin?: string }).origin, "card", String(made));
    } finally {
      open();
      await pool.close();
    }
  },
});

Deno.test({
  name: "RenderPool: a worker whose thread neither reports nor uses the CPU is ended",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const { pool, holding, asked, twoLooks, open } = gatedPool("hung");
    try {
      await holding;
      const check = await twoLooks();
      if (!("isWorking" in check)) {
        assert.fail(`ended without a look at its thread: ${String(check.settled)}`);
      }
      assert.equal(check.isWorking, false, JSON.stringify(check));
      assert.ok(check.sample !== null, "ps found the thread");
      const error = await asked;
      assert.ok(error instanceof CueportError, String(error));
      assert.equal(error.message, "The picture worker made no progress for 1 s");
    } finally {
      open();
      await pool.close();
    }
  },
});

Deno.test("psSeconds reads ps's [DD-]HH:MM:SS", () => {
  assert.equal(psSeconds("00:00:07"), 7);
  assert.equal(psSeconds("01:02:03"), 3723);
  assert.equal(psSeconds("2-00:00:01"), 172801);
  assert.ok(Number.isNaN(psSeconds("")));
});

/**
 * The picture pool ends a worker only for making no progress, never for being
 * slow: on a virtual clock, a stand-in worker that makes none is ended after
 * two looks of its watch; the real worker reports progress while a job runs.
 * (`tests/lib/progress_watch_test.ts`: a worker that reports is watched
 * on for as long as it works.)
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/clock.ts";
import { CueportError } from "../../../server/core/mod.ts";
import { RenderPool } from "../../../server/media/pool.ts";
import { until } from "../../../tools/testing/until.ts";
import { source } from "./render/_fixtures.ts";

const JOB = {
  type: "waveform" as const,
  source: source("/nonexistent.wav", "audio"),
  width: 64,
  height: 16,
  ffmpeg: null,
};

Deno.test("RenderPool ends a worker that makes no progress after two looks, not before", async () => {
  const clock = new VirtualClock();
  const pool = new RenderPool({
    clock,
    stallMs: 1000,
    localLane: false,
    workerUrl: new URL("_silent_render_worker.ts", import.meta.url).href,
  });
  try {
    let settled = false;
    const asked = pool.render(JOB).catch((e) => e).finally(() => settled = true);
    // A generous bound: a busy machine may take long to start a worker (no assertion on time).
    await until("the job to run", () => pool.waiting === 0, 120_000);
    clock.advance(1000);
    await Promise.resolve();
    assert.equal(settled, false, "one quiet look is not enough");
    clock.advance(1000);
    const error = await asked;
    assert.ok(error instanceof CueportError, String(error));
    assert.equal(error.code, "SERVER_ERROR");
    assert.equal(error.message, "The picture worker made no progress for 1 s");
  } finally {
    await pool.close();
  }
});

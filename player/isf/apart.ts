/**
 * `parseIsf` off the player's thread, so a live show's clock never waits on
 * a check. A check is bounded by its work (`bounds.ts`), never by time: its
 * worker is not ended for being slow. Only a worker that reports no progress
 * at all (a fault of the checker, not of the code) is given up on, and that
 * is not a verdict: `IsfCheckStalled`, which the edit answers as retryable.
 * @module
 */
import { type Clock, MonotonicClock } from "../clock.ts";
import type { IsfCheckBounds } from "./bounds.ts";
import type { IsfKind, IsfResult } from "./parse.ts";
import { ProgressWatch } from "../../protocol/progress_watch.ts";

/**
 * How often a check's watch looks for progress, ms; a worker that reported
 * none over two looks in a row (30 to 60 s of no work at all) is given up
 * on. A worker reports every 1024 units of work: about 0.2 s apart at a
 * load average of 30 (docs/presets.md, "Bounds"); loading it takes about
 * 50 ms on a quiet machine, seconds on a busy one.
 */
export const ISF_CHECK_STALL_MS = 30_000;

/** A check whose worker made no progress: no verdict on the code, send it again. */
export class IsfCheckStalled extends Error {
  /** Stable: `CHECK_STALLED`. */
  readonly code = "CHECK_STALLED";

  /** The error for a worker silent over two looks `periodMs` apart. */
  constructor(periodMs: number) {
    super(
      `The code could not be checked: its check made no progress for ${
        periodMs / 1000
      } s (a fault of the checker, not a verdict on the code): send it again`,
    );
    this.name = "IsfCheckStalled";
  }
}

/** How a check apart runs. */
export interface IsfApartOptions {
  /** The clock of the progress watch (the player's monotonic clock by default). */
  readonly clock?: Clock;
  /** Bounds in place of ISF_CHECK_BOUNDS' (a test's tiny budget). */
  readonly bounds?: Partial<IsfCheckBounds>;
  /** The watch's period, ms (ISF_CHECK_STALL_MS). */
  readonly stallMs?: number;
  /** The worker's module (`worker.ts`; a test's stand-in). */
  readonly workerUrl?: string;
  /** Hears each progress report of the worker (its work so far). */
  readonly onProgress?: (work: number) => void;
}

type WorkerMessage = { ready: true } | { progress: number } | { result: IsfResult };

/**
 * `parseIsf(code, kind)` on a worker (`worker.ts`) that ends after its
 * answer; a check that fails on the worker is one problem.
 * @throws {IsfCheckStalled} when the worker reported no progress over two looks of its watch
 */
export async function parseIsfApart(
  code: string,
  kind: IsfKind,
  options: IsfApartOptions = {},
): Promise<IsfResult> {
  const url = options.workerUrl ?? new URL("./worker.ts", import.meta.url).href;
  const stallMs = options.stallMs ?? ISF_CHECK_STALL_MS;
  const worker = new Worker(url, { type: "module" });
  const answer = Promise.withResolvers<IsfResult>();
  const watch = new ProgressWatch(
    options.clock ?? new MonotonicClock(),
    stallMs,
    () => answer.reject(new IsfCheckStalled(stallMs)),
  );
  worker.onmessage = ({ data }: MessageEvent<WorkerMessage>) => {
    watch.progress();
    if ("result" in data) return answer.resolve(data.result);
    if ("progress" in data) return options.onProgress?.(data.progress);
    worker.postMessage({ code, kind, bounds: options.bounds ?? {} });
  };
  // A check that throws on its worker refuses the code (a 422, never a 500), saying why.
  worker.onerror = (event) => {
    event.preventDefault();
    const message = `the code could not be checked: ${event.message}`;
    answer.resolve({ ok: false, problems: [{ line: 1, column: 1, message }] });
  };
  try {
    return await answer.promise;
  } finally {
    watch.stop();
    worker.terminate();
  }
}

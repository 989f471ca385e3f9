/**
 * The watch over a picture worker's job (`RenderPool`): its progress reports
 * (`lib/progress_watch.ts`: two quiet looks `stallMs` apart), then its thread. A worker's
 * reports come from its event loop, which does not turn during a synchronous decode, and at a
 * lowered priority on a busy machine one decode can outlast two looks (issue 42: 3 rounds of 5
 * at load 57). So after two quiet looks the worker's thread is looked at (`sampleThread`): one
 * that runs (or waits for a CPU), or used CPU time since the last look, is working, and watched
 * on; one that does neither (it sleeps, and used none) is hung. Without its thread id (not
 * Linux, no `ps`), two quiet looks are a stall, as before.
 * @module
 */
import { ProgressWatch, type TimerClock } from "../../lib/progress_watch.ts";
import { sampleThread, type ThreadSample } from "./pool_thread.ts";

/** What a look at a quiet worker's thread found (`JobWatchOptions.onChecked`). */
export interface ThreadCheck {
  /** It runs, or its CPU time grew since the last look: it is watched on. */
  isWorking: boolean;
  /** What `ps` told (null: the thread is gone, or `ps` could not tell). */
  sample: ThreadSample | null;
}

/** How a job's worker is watched. */
export interface JobWatchOptions {
  clock: TimerClock;
  /** How far apart the looks at its reports are, ms. */
  stallMs: number;
  /** The worker's thread id (null: unknown, only its reports count). */
  tid: string | null;
  /** Told each look at its thread. */
  onChecked(check: ThreadCheck): void;
  /** Runs once, when it made no progress: no reports over two looks, nor work on its thread. */
  onStall(): void;
}

/** Watches one job's worker; `stop()` it once the job is answered or ended. */
export class JobWatch {
  readonly #o: JobWatchOptions;
  #watch: ProgressWatch | null = null;
  #last: ThreadSample | null = null;
  #isStopped = false;
  /** A report came while its thread was looked at. */
  #hasReportedMeanwhile = false;

  /** Watches from now. */
  constructor(options: JobWatchOptions) {
    this.#o = options;
    this.#arm();
  }

  /** The worker reported work. */
  progress(): void {
    if (this.#watch) this.#watch.progress();
    else this.#hasReportedMeanwhile = true;
  }

  /** Ends the watch (a look under way is dropped). */
  stop(): void {
    this.#isStopped = true;
    this.#watch?.stop();
    this.#watch = null;
  }

  #arm(): void {
    this.#watch = new ProgressWatch(this.#o.clock, this.#o.stallMs, () => {
      this.#watch = null;
      const tid = this.#o.tid;
      if (tid === null) return this.#o.onStall(); // nothing more to know
      void this.#check(tid);
    });
  }

  async #check(tid: string): Promise<void> {
    this.#hasReportedMeanwhile = false;
    const sample = await sampleThread(tid);
    if (this.#isStopped) return; // answered or ended meanwhile
    const last = this.#last;
    const isWorking = this.#hasReportedMeanwhile || (sample !== null &&
      (sample.isRunning || (last !== null && sample.cpuSeconds > last.cpuSeconds)));
    this.#last = sample;
    this.#o.onChecked({ isWorking, sample });
    if (isWorking) this.#arm();
    else this.#o.onStall();
  }
}

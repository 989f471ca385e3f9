/**
 * Workers that make the pictures (`render/worker.ts`), off the service's
 * event loop. The queue is bounded and fair (`pool_queue.ts`): each client (an
 * address) has its own line, at most `maxQueuedPerClient` long, the lines take
 * turns, and all of them hold at most `maxQueued` jobs; past either bound a
 * job is refused at once with `RATE_LIMITED`. A job whose request is abandoned (its
 * `signal` aborts) leaves the queue, or, running, ends its worker. A worker is
 * never ended for being slow: while it runs a job it reports progress each
 * second, and one that reported none over two looks `stallMs` apart
 * (`pool_watch.ts`) has its thread looked at (`pool_thread.ts`): one running,
 * or whose CPU time grew since the last look, is working (a synchronous decode
 * turns no event loop) and watched on; one that neither reports nor uses the CPU
 * is ended, as is a worker that dies; the next large
 * picture waits for the ended worker's memory to come back (at most 5 s); a worker
 * that decoded a large picture is replaced after it (WASM memory only grows,
 * and a fresh worker gives it back). Those workers lower their threads'
 * priority (`render/worker.ts`), so the show wins the CPU. One more worker, the
 * local lane, keeps the service's priority and makes the light pictures
 * (`isLight`) of clients on this machine, and only those: the operator's
 * thumbnail never waits behind a remote device's original-size picture, for
 * the codecs of the worker that replaces it, nor on a low-priority thread that
 * busy processes starve (`docs/media.md`, "Limits").
 * @module
 */
import { CueportError } from "../core/mod.ts";
import { MONOTONIC_TIMER_CLOCK, type TimerClock } from "../../lib/progress_watch.ts";
import type { Rendered, RenderJob } from "./render/mod.ts";
import type { WorkerProgress, WorkerReady, WorkerResponse, WorkerSetup } from "./render/worker.ts";
import { abandoned, type Job, JobQueue } from "./pool_queue.ts";
import { JobWatch, type ThreadCheck } from "./pool_watch.ts";

/** Options of the pool. */
export interface RenderPoolOptions {
  /** Workers for every job (default 1: the machine also runs the player and the network). */
  size?: number;
  /**
   * Whether one more worker, at the service's priority, makes local clients' light pictures
   * (`isLight`), which the others then never take (default true). It starts with the first job,
   * and stays.
   */
  localLane?: boolean;
  /**
   * A job's worker that reported no progress over two looks this far apart (default 30 s) has
   * its thread looked at: it is ended unless the thread runs or its CPU time grew since the last
   * look. One that reports (each second, from its event loop) is never ended, however slow.
   */
  stallMs?: number;
  /** The clock the progress watch looks on (tests: a virtual one). */
  clock?: TimerClock;
  /** The worker's module (`render/worker.ts`; a test's stand-in). */
  workerUrl?: string;
  /** Jobs one client may have waiting (default 16). */
  maxQueuedPerClient?: number;
  /** Jobs waiting in all (default 128). */
  maxQueued?: number;
  /** A worker that decoded a picture of more pixels is replaced after the job (default 8,000,000: a 4K still is more). */
  recyclePixels?: number;
  /** A worker whose JavaScript heap and buffers hold more is replaced (default 192 MiB). */
  recycleBytes?: number;
  /** The process's resident memory, bytes (default `Deno.memoryUsage().rss`; tests). */
  memory?: () => number;
  /** After a worker is ended, a large job waits at most this long for its memory, ms (default 5000). */
  drainMs?: number;
  /** Told what the pool does (tests wait on these, not on time). */
  hooks?: RenderPoolHooks;
}

/** What the pool tells `RenderPoolOptions.hooks`. */
export interface RenderPoolHooks {
  /** A job was handed to a worker. */
  jobStarted?(job: { id: number; client: string }): void;
  /** A worker compiled its codecs (`RenderPool.workers` tells it is ready). */
  workerReady?(): void;
  /**
   * A job's worker reported no progress over two looks and its thread was looked at: `isWorking`
   * when it runs or its CPU time grew (watched on), else it is ended.
   */
  threadChecked?(check: ThreadCheck & { id: number }): void;
}

/** How one request waits for its job. */
export interface RenderRequest {
  /** Who asks (an address): clients take turns. Default: one shared line. */
  client?: string;
  /** Aborted when the request is abandoned: the job is dropped or ended. */
  signal?: AbortSignal;
  /** A client on this machine (the operator's): its line goes before remote ones. */
  isLocal?: boolean;
}

const ERROR_CODES = new Set(["CORRUPT_MEDIA", "UNSUPPORTED_MEDIA", "UNAVAILABLE"]);
/** The process's workers look for their threads one at a time (`WorkerSetup.lookLock`). */
const LOOK_LOCK = new Int32Array(new SharedArrayBuffer(4));
/** How long `close()` waits for workers still compiling their codecs, ms. */
const RETIRE_WAIT_MS = 10_000;

/** What a test or a probe may see of one worker (`RenderPool.workers`). */
export interface WorkerState {
  /** The local lane (local clients' light pictures, at the service's priority). */
  isLane: boolean;
  /** Whether its codecs are compiled. */
  isReady: boolean;
  /** Jobs started on its slot (by this worker and the ones it replaced). */
  jobs: number;
  /** The niceness its thread runs at (Linux, once ready), or null where unknown. */
  nice: number | null;
}

/** A worker and the job it runs. */
class Slot {
  /** The local lane: only local clients' light jobs (`isLight`), at the service's priority. */
  readonly isLane: boolean;
  worker: Worker | null = null;
  /** Whether the worker's codecs are compiled (terminating it before then aborts the process). */
  isReady = false;
  /** The niceness the worker's thread runs at, from its `ready` (null: unknown, or not yet). */
  nice: number | null = null;
  /** The worker's thread id, from its `ready` (null: unknown, or not yet). */
  tid: string | null = null;
  job: Job | null = null;
  /** Watches the running job's worker for progress. */
  watch: JobWatch | null = null;
  /** The process's resident memory when the worker's last large job (or the worker) started. */
  startRss = 0;
  /** A busy worker was ended: the next job waits until memory is this low again, or `until`. */
  drain: { below: number; until: number } | null = null;
  drainTimer: ReturnType<typeof setTimeout> | undefined;
  /** The worker held a large picture: it is replaced once idle, or before a large job. */
  isRecycleDue = false;
  /** Jobs started on this slot. */
  jobs = 0;

  constructor(isLane = false) {
    this.isLane = isLane;
  }

  /** Ends the watch of the job that ran. */
  stopWatch(): void {
    this.watch?.stop();
    this.watch = null;
  }

  /**
   * Whether the slot's worker may run `job`: a local light job runs on the local lane
   * (`hasLane`) and nowhere else, every other job anywhere but there.
   */
  accepts(job: Job, hasLane: boolean): boolean {
    const isLaneJob = hasLane && job.isLocal && isLight(job.job);
    return this.isLane ? isLaneJob : !isLaneJob;
  }
}

/**
 * What a fresh worker may add to the memory the process had when the ended
 * worker's job started, before the next job begins (its isolate and codecs).
 */
const DRAIN_MARGIN_BYTES = 64 * 1024 * 1024;
/** How often a draining slot looks at memory again, ms. */
const DRAIN_POLL_MS = 50;

/**
 * A job that may hold a whole picture's pixels: a thumbnail at the original
 * size (other sizes decode a JPEG scaled, and a waveform's raster is small).
 */
function isLarge(job: RenderJob): boolean {
  return job.type !== "waveform" && job.size === null && !isCardOnly(job);
}

/**
 * A thumbnail of an image the catalog knows to be over the job's `maxPixels`: the worker
 * refuses it from its header, so it is a card (at most 512x512) and nothing is decoded.
 */
function isCardOnly(job: RenderJob): boolean {
  if (job.type !== "thumbnail" || job.source.kind !== "image") return false;
  const { pixels } = job.source;
  return typeof pixels === "number" && pixels > job.maxPixels;
}

/** The most pixels of a picture the local lane may decode whole: a 4K still. */
const LANE_PIXELS = 3840 * 2160;

/**
 * A job that holds little memory, so the local lane may run it beside a large one: a waveform
 * (read as it streams), a card (`isCardOnly`), or a thumbnail at a size of a picture the catalog
 * knows to have at most `LANE_PIXELS`. Any picture may be decoded whole: a PNG or a video's
 * frame always (a 36-megapixel PNG's 64-pixel thumbnail adds about 400 MB to the process), a
 * JPEG where its scaled decode fails (some phone JPEGs fall back to a full decode).
 */
function isLight(job: RenderJob): boolean {
  if (job.type === "waveform" || isCardOnly(job)) return true;
  if (job.size === null) return false;
  const { pixels } = job.source;
  return typeof pixels === "number" && pixels <= LANE_PIXELS;
}

/** Runs render jobs on a few workers, started on first use. */
export class RenderPool {
  #queue: JobQueue;
  #slots: Slot[];
  #nextId = 1;
  #o: Required<Omit<RenderPoolOptions, "size" | "localLane" | "hooks">>;
  #hooks: RenderPoolHooks;
  #isClosed = false;
  #started = 0;
  /** Workers ended while they still compiled their codecs: terminated once they are ready. */
  #retiring = new Set<Worker>();
  /** Resolved by `close()`'s wait once no worker is retiring. */
  #retired: PromiseWithResolvers<void> | null = null;

  /** Builds the pool; no worker starts before the first job. */
  constructor(options: RenderPoolOptions = {}) {
    this.#slots = Array.from({ length: Math.max(1, options.size ?? 1) }, () => new Slot());
    if (options.localLane ?? true) this.#slots.push(new Slot(true));
    this.#o = {
      stallMs: options.stallMs ?? 30_000,
      clock: options.clock ?? MONOTONIC_TIMER_CLOCK,
      workerUrl: options.workerUrl ?? new URL("./render/worker.ts", import.meta.url).href,
      maxQueuedPerClient: options.maxQueuedPerClient ?? 16,
      maxQueued: options.maxQueued ?? 128,
      recyclePixels: options.recyclePixels ?? 8_000_000,
      recycleBytes: options.recycleBytes ?? 192 * 1024 * 1024,
      memory: options.memory ?? (() => Deno.memoryUsage().rss),
      drainMs: options.drainMs ?? 5000,
    };
    this.#queue = new JobQueue(this.#o);
    this.#hooks = options.hooks ?? {};
  }

  /** Jobs waiting for a worker. */
  get waiting(): number {
    return this.#queue.waiting;
  }

  /** Workers ended while they compiled their codecs, not yet gone. */
  get retiring(): number {
    return this.#retiring.size;
  }

  /** Workers started so far (a replaced worker counts again). */
  get workersStarted(): number {
    return this.#started;
  }

  /** Every worker's slot: the lane's and the others', whether started or not. */
  get workers(): WorkerState[] {
    return this.#slots.map((s) => ({
      isLane: s.isLane,
      isReady: s.isReady,
      jobs: s.jobs,
      nice: s.nice,
    }));
  }

  /** The local lane's worker (`workers`); null without one. */
  get lane(): WorkerState | null {
    return this.workers.find((w) => w.isLane) ?? null;
  }

  /**
   * Renders `job` on a worker, in `request.client`'s turn.
   * @throws {CueportError} RATE_LIMITED (with `retryAfterSeconds`) past the queue's bounds;
   * REQUEST_TIMEOUT when `request.signal` aborted; the job's CORRUPT_MEDIA, UNSUPPORTED_MEDIA
   * or UNAVAILABLE; SERVER_ERROR when a worker failed or timed out
   */
  render(job: RenderJob, request: RenderRequest = {}): Promise<Rendered> {
    if (this.#isClosed) {
      return Promise.reject(new CueportError("NOT_READY", "The service is stopping"));
    }
    const { client = "", signal } = request;
    if (signal?.aborted) return Promise.reject(abandoned());
    const refusal = this.#queue.refusal(client, () => this.#slots.every((s) => s.job || s.isLane));
    if (refusal) return Promise.reject(refusal);
    return new Promise((resolve, reject) => {
      const onAbort = () => this.#abandon(entry);
      const entry: Job = {
        id: this.#nextId++,
        job,
        client,
        isLocal: request.isLocal ?? false,
        resolve,
        reject,
        detach: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(entry);
      this.#pump();
    });
  }

  /** Ends every worker; waiting jobs are refused. */
  close(): Promise<void> {
    this.#isClosed = true;
    this.#queue.clear(() => new CueportError("NOT_READY", "The service is stopping"));
    for (const slot of this.#slots) {
      clearTimeout(slot.drainTimer);
      this.#end(slot, "The service is stopping");
    }
    return this.#whenRetired();
  }

  /**
   * Resolves once every retiring worker has compiled its codecs and been ended: V8 aborts the
   * whole process when a worker's isolate goes while it compiles WebAssembly (Deno 2.9.6), so
   * nothing may end the process, or a test's module, before. Bounded by `RETIRE_WAIT_MS`.
   */
  #whenRetired(): Promise<void> {
    if (this.#retiring.size === 0) return Promise.resolve();
    this.#retired ??= Promise.withResolvers<void>();
    const timer = setTimeout(() => this.#retired?.resolve(), RETIRE_WAIT_MS);
    return this.#retired.promise.finally(() => clearTimeout(timer));
  }

  /** Ends a retiring worker (it is ready, or failed); `close()` may be waiting for the last. */
  #retire(worker: Worker, terminate: boolean): boolean {
    if (!this.#retiring.delete(worker)) return false;
    if (terminate) worker.terminate();
    if (this.#retiring.size === 0) this.#retired?.resolve();
    return true;
  }

  #abandon(job: Job): void {
    if (this.#queue.remove(job)) return job.reject(abandoned());
    const slot = this.#slots.find((s) => s.job === job);
    if (slot) this.#end(slot, null);
  }

  #pump(): void {
    const hasLane = this.#slots.some((s) => s.isLane);
    for (const slot of this.#slots) {
      if (slot.job) continue;
      // Local light jobs wait for the lane alone, even while another worker is idle: at its
      // lowered priority that one may get a thirtieth of a core beside busy processes (issue 42).
      const next = this.#queue.waiting > 0
        ? this.#queue.next((j) => slot.accepts(j, hasLane)) ?? null
        : null;
      // A worker due for replacement (it held a large picture) first makes the small pictures
      // waiting, with its codecs compiled (the operator's thumbnail waits for no fresh worker);
      // it is replaced once idle, or before a large picture.
      if (slot.isRecycleDue && (next === null || isLarge(next.job))) this.#recycle(slot);
      if (next === null) continue;
      const worker = slot.worker ??= this.#start(slot);
      this.#warm();
      if (!slot.isReady) continue; // its `ready` pumps again; a job waits in its line meanwhile
      if (isLarge(next.job) && !this.#isDrained(slot)) continue; // its timer pumps again
      const job = next;
      this.#queue.take(job);
      slot.job = job;
      slot.jobs++;
      // The memory a large picture's worker is to give back down to (a small job after it, on
      // the same worker, would measure what the large one still holds).
      if (isLarge(job.job)) slot.startRss = this.#o.memory();
      slot.watch = this.#watch(slot, job);
      worker.postMessage({ id: job.id, job: job.job });
      this.#hooks.jobStarted?.({ id: job.id, client: job.client });
    }
  }

  /** Watches the slot's worker running `job` (`pool_watch.ts`). */
  #watch(slot: Slot, job: Job): JobWatch {
    const { clock, stallMs } = this.#o, tid = slot.tid;
    return new JobWatch({
      ...{ clock, stallMs, tid },
      onChecked: (check) => this.#hooks.threadChecked?.({ id: job.id, ...check }),
      onStall: () => {
        slot.watch = null;
        this.#end(slot, `The picture worker made no progress for ${stallMs / 1000} s`);
      },
    });
  }

  /**
   * Starts the local lane's worker and the first other one, where they have none, as soon as
   * either starts: compiling codecs takes a second or more on a loaded machine (more at a
   * lowered priority), which the first picture each makes would otherwise wait for.
   */
  #warm(): void {
    if (this.#isClosed) return;
    const lane = this.#slots.find((s) => s.isLane);
    const first = this.#slots.find((s) => !s.isLane);
    for (const slot of [lane, first]) if (slot && !slot.worker) slot.worker = this.#start(slot);
  }

  /**
   * Whether the slot may start a large job (`isLarge`): a worker ended (its
   * job abandoned or past its deadline, or replaced after a large picture)
   * gives its memory back only once its thread is gone, a few hundred ms
   * later, and a 4K picture's next job on the fresh worker would hold as much
   * again meanwhile (the service's peak was two pictures' worth). So a large job waits until the
   * process is back near where it was when the ended worker's last large job started, at most
   * `drainMs`; a small one (a thumbnail, decoded scaled) goes at once.
   */
  #isDrained(slot: Slot): boolean {
    const drain = slot.drain;
    if (drain === null) return true;
    if (this.#o.memory() <= drain.below || performance.now() >= drain.until) {
      slot.drain = null;
      return true;
    }
    slot.drainTimer ??= setTimeout(() => {
      slot.drainTimer = undefined;
      if (!this.#isClosed) this.#pump();
    }, DRAIN_POLL_MS);
    return false;
  }

  /**
   * Replaces the slot's idle worker (it answered a job: its codecs are
   * compiled). The fresh one compiles its codecs now, while nothing waits for
   * it; a large job waits for the old one's memory as after a busy worker is ended.
   */
  #recycle(slot: Slot): void {
    slot.isRecycleDue = false;
    slot.worker?.terminate();
    this.#drainAfter(slot);
    slot.worker = this.#isClosed ? null : this.#start(slot);
  }

  /** The slot's worker was ended after (or during) a job: a large job waits for its memory. */
  #drainAfter(slot: Slot): void {
    slot.drain = {
      below: slot.startRss + DRAIN_MARGIN_BYTES,
      until: performance.now() + this.#o.drainMs,
    };
  }

  #start(slot: Slot): Worker {
    this.#started++;
    slot.isReady = false;
    slot.nice = null;
    slot.tid = null;
    slot.isRecycleDue = false;
    slot.startRss = this.#o.memory();
    const worker = new Worker(this.#o.workerUrl, { type: "module" });
    worker.postMessage({ lowersPriority: !slot.isLane, lookLock: LOOK_LOCK } satisfies WorkerSetup);
    worker.onmessage = (event: MessageEvent<WorkerResponse | WorkerReady | WorkerProgress>) => {
      if ("ready" in event.data) {
        if (this.#retire(worker, true)) return;
        if (slot.worker === worker) {
          slot.isReady = true;
          slot.nice = event.data.nice ?? null;
          slot.tid = event.data.tid ?? null;
          this.#hooks.workerReady?.();
          this.#pump();
        }
        return;
      }
      if (slot.worker !== worker) return;
      if ("progress" in event.data) return slot.watch?.progress();
      const job = slot.job;
      if (!job || event.data.id !== job.id) return;
      slot.stopWatch();
      slot.job = null;
      job.detach();
      const answer = event.data;
      if (answer.ok) job.resolve(answer.rendered);
      else {
        const code = ERROR_CODES.has(answer.error.code) ? answer.error.code : "SERVER_ERROR";
        job.reject(new CueportError(code as "SERVER_ERROR", answer.error.message));
      }
      const { pixels, heapBytes } = answer.usage;
      if (pixels > this.#o.recyclePixels || heapBytes > this.#o.recycleBytes) {
        slot.isRecycleDue = true; // `#pump` says when
      }
      this.#pump();
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (slot.worker !== worker) {
        this.#retire(worker, false);
        return;
      }
      this.#end(slot, `The picture worker failed: ${event.message}`);
    };
    return worker;
  }

  /**
   * Ends a slot's worker, refusing its job (`reason`, or null for an
   * abandoned one); the next job starts a fresh worker.
   */
  #end(slot: Slot, reason: string | null): void {
    slot.stopWatch();
    const worker = slot.worker;
    if (worker && slot.isReady) worker.terminate();
    else if (worker) this.#retiring.add(worker);
    slot.worker = null;
    slot.isRecycleDue = false;
    if (worker && slot.job && !this.#isClosed) this.#drainAfter(slot);
    const job = slot.job;
    slot.job = null;
    job?.detach();
    job?.reject(reason === null ? abandoned() : new CueportError("SERVER_ERROR", reason));
    if (!this.#isClosed) this.#pump();
  }
}

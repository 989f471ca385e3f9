/**
 * Workers that make the pictures (`render/worker.ts`), off the service's
 * event loop: jobs wait in order for a free worker; a job past its deadline
 * ends its worker (a fresh one takes its place), as does a worker that dies.
 * @module
 */
import { CueportError } from "../core/mod.ts";
import type { Rendered, RenderJob } from "./render/mod.ts";

/** What a worker answers. */
type WorkerAnswer =
  | { id: number; ok: true; rendered: Rendered }
  | { id: number; ok: false; error: { code: string; message: string } };

interface Job {
  id: number;
  job: RenderJob;
  resolve(rendered: Rendered): void;
  reject(error: Error): void;
}

/** Options of the pool. */
export interface RenderPoolOptions {
  /** Workers at most (default 1: the machine also runs the player and the network). */
  size?: number;
  /** A job taking longer ends its worker (default 30 s). */
  deadlineMs?: number;
}

const ERROR_CODES = new Set(["CORRUPT_MEDIA", "UNSUPPORTED_MEDIA", "UNAVAILABLE"]);

/** A worker and the job it runs. */
class Slot {
  worker: Worker | null = null;
  job: Job | null = null;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Runs render jobs on a few workers, started on first use. */
export class RenderPool {
  #queue: Job[] = [];
  #slots: Slot[];
  #nextId = 1;
  #deadlineMs: number;
  #isClosed = false;

  /** Builds the pool; no worker starts before the first job. */
  constructor(options: RenderPoolOptions = {}) {
    this.#slots = Array.from({ length: Math.max(1, options.size ?? 1) }, () => new Slot());
    this.#deadlineMs = options.deadlineMs ?? 30_000;
  }

  /** Jobs waiting for a worker. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Renders `job` on a worker.
   * @throws {CueportError} the job's CORRUPT_MEDIA, UNSUPPORTED_MEDIA or UNAVAILABLE; SERVER_ERROR when a worker failed or timed out
   */
  render(job: RenderJob): Promise<Rendered> {
    if (this.#isClosed) {
      return Promise.reject(new CueportError("NOT_READY", "The service is stopping"));
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, job, resolve, reject });
      this.#pump();
    });
  }

  /** Ends every worker; waiting jobs are refused. */
  close(): void {
    this.#isClosed = true;
    for (const job of this.#queue.splice(0)) {
      job.reject(new CueportError("NOT_READY", "The service is stopping"));
    }
    for (const slot of this.#slots) this.#end(slot, "The service is stopping");
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.job || this.#queue.length === 0) continue;
      const job = this.#queue.shift()!;
      slot.job = job;
      const worker = slot.worker ??= this.#start(slot);
      slot.timer = setTimeout(
        () => this.#end(slot, `Making the picture took over ${this.#deadlineMs / 1000} s`),
        this.#deadlineMs,
      );
      worker.postMessage({ id: job.id, job: job.job });
    }
  }

  #start(slot: Slot): Worker {
    const worker = new Worker(new URL("./render/worker.ts", import.meta.url).href, {
      type: "module",
    });
    worker.onmessage = (event: MessageEvent<WorkerAnswer>) => {
      const job = slot.job;
      if (!job || event.data.id !== job.id) return;
      clearTimeout(slot.timer);
      slot.job = null;
      const answer = event.data;
      if (answer.ok) job.resolve(answer.rendered);
      else {
        const code = ERROR_CODES.has(answer.error.code) ? answer.error.code : "SERVER_ERROR";
        job.reject(
          new CueportError(code as "SERVER_ERROR", answer.error.message),
        );
      }
      this.#pump();
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.#end(slot, `The picture worker failed: ${event.message}`);
    };
    return worker;
  }

  /** Ends a slot's worker, refusing its job; the next job starts a fresh worker. */
  #end(slot: Slot, reason: string): void {
    clearTimeout(slot.timer);
    slot.worker?.terminate();
    slot.worker = null;
    const job = slot.job;
    slot.job = null;
    job?.reject(new CueportError("SERVER_ERROR", reason));
    if (!this.#isClosed) this.#pump();
  }
}

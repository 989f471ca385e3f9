/**
 * The render pool's queue (`RenderPool` keeps its workers): bounded and fair.
 * Each client (an address) has its own line, at most `maxQueuedPerClient`
 * long, the lines take turns, local clients' lines first, and all of them hold
 * at most `maxQueued` jobs; past either bound a job is refused at once with
 * `RATE_LIMITED`.
 * @module
 */
import { CueportError } from "../core/mod.ts";
import type { Rendered, RenderJob } from "./render/mod.ts";

/** A job waiting in its client's line, or running on a worker. */
export interface Job {
  id: number;
  job: RenderJob;
  client: string;
  isLocal: boolean;
  resolve(rendered: Rendered): void;
  reject(error: Error): void;
  /** Stops listening to the request's signal. */
  detach(): void;
}

/** The error of a job whose request was abandoned (nobody reads it). */
export function abandoned(): CueportError {
  return new CueportError(
    "REQUEST_TIMEOUT",
    "The request was abandoned before its picture was made",
  );
}

/** The queue's bounds (`RenderPoolOptions`). */
export interface QueueLimits {
  maxQueuedPerClient: number;
  maxQueued: number;
}

/** The jobs waiting for a worker, a line a client. */
export class JobQueue {
  /** Waiting jobs by client. */
  #lines = new Map<string, Job[]>();
  /** When each client was last served (a counter), oldest first. */
  #served = new Map<string, number>();
  #turn = 0;
  #waiting = 0;
  #limits: QueueLimits;

  /** An empty queue with these bounds. */
  constructor(limits: QueueLimits) {
    this.#limits = limits;
  }

  /** Jobs waiting for a worker. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Why a new job of `client` is refused, or null: its line is full, or the
   * queue is while `isBusy()` (no worker could take one now).
   */
  refusal(client: string, isBusy: () => boolean): CueportError | null {
    const { maxQueuedPerClient, maxQueued } = this.#limits;
    if ((this.#lines.get(client)?.length ?? 0) >= maxQueuedPerClient) {
      return new CueportError(
        "RATE_LIMITED",
        `Too many pictures waiting for "${client}": at most ${maxQueuedPerClient}`,
        { retryAfterSeconds: 1 },
      );
    }
    if (this.#waiting >= maxQueued && isBusy()) {
      return new CueportError(
        "RATE_LIMITED",
        `Too many pictures waiting: at most ${maxQueued}`,
        { retryAfterSeconds: 1 },
      );
    }
    return null;
  }

  /** Puts `job` at the end of its client's line. */
  push(job: Job): void {
    const line = this.#lines.get(job.client) ?? [];
    line.push(job);
    this.#lines.set(job.client, line);
    this.#waiting++;
  }

  /** Takes `job` (from `next`) out of its line, and counts its client's turn. */
  take(job: Job): void {
    const { client } = job;
    const line = this.#lines.get(client)!;
    line.splice(line.indexOf(job), 1);
    if (line.length === 0) this.#lines.delete(client);
    this.#waiting--;
    this.#served.delete(client);
    this.#served.set(client, this.#turn++);
    // Only the order matters: forget the clients served longest ago.
    if (this.#served.size > 1024) this.#served.delete(this.#served.keys().next().value!);
  }

  /**
   * The job a worker runs next: of the lines that hold a job it `accepts`, the
   * one whose client was served least recently (never served first), so
   * clients take turns; local clients before remote ones, so the operator's
   * own screen waits for one job at most (none with the local lane); in that
   * line, the first job it accepts.
   */
  next(accepts: (job: Job) => boolean): Job | undefined {
    let next: Job | undefined;
    let nextServed = Infinity;
    for (const [client, line] of this.#lines) {
      const job = line.find(accepts);
      if (!job) continue;
      const served = (this.#served.get(client) ?? -1) - (job.isLocal ? 2 ** 40 : 0);
      if (served < nextServed) [next, nextServed] = [job, served];
    }
    return next;
  }

  /** Takes a waiting `job` out of its line, without a turn; false when it is not waiting. */
  remove(job: Job): boolean {
    const line = this.#lines.get(job.client);
    const at = line?.indexOf(job) ?? -1;
    if (!line || at < 0) return false;
    line.splice(at, 1);
    if (line.length === 0) this.#lines.delete(job.client);
    this.#waiting--;
    return true;
  }

  /** Refuses every waiting job with `error()`, and empties the queue. */
  clear(error: () => Error): void {
    for (const line of this.#lines.values()) {
      for (const job of line) {
        job.detach();
        job.reject(error());
      }
    }
    this.#lines.clear();
    this.#waiting = 0;
  }
}

/**
 * The coalescing event bus the transports subscribe to. Updates published
 * within one window go out as one batch, coalesced by the rule of
 * `protocol/coalesce.ts`: an update that supersedes an earlier one drops it
 * and takes its own place at the end, so a value that changed many times is
 * sent once, with its latest value, and the batch stays in the order of the
 * latest changes. While updates keep coming, the windows follow each other
 * on one interval timer (issue 42); the first tick with nothing to deliver
 * stops it.
 * @module
 */
import { clearInterval, setInterval } from "node:timers";
import { coalesceKey } from "../../protocol/coalesce.ts";
import type { StateUpdate } from "../../protocol/state.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";

/** A batch delivered to subscribers, numbered from 1 with no gaps. */
export interface UpdateBatch {
  seq: number;
  updates: readonly StateUpdate[];
}

/** Options of the bus. */
export interface EventBusOptions {
  /**
   * Milliseconds to gather a burst before delivering it (at most this long while windows
   * follow each other); 0 delivers on the next macrotask.
   */
  windowMs?: number;
  /** The interval timer the windows run on (tests drive their own); default `node:timers`'. */
  timers?: IntervalTimers;
}

/** Starts and stops an interval timer, as `node:timers` does. */
export interface IntervalTimers {
  setInterval(tick: () => void, ms: number): unknown;
  clearInterval(id: unknown): void;
}

const NODE_TIMERS: IntervalTimers = {
  setInterval: (tick, ms) => setInterval(tick, ms),
  clearInterval: (id) => clearInterval(id as ReturnType<typeof setInterval>),
};

/** Publish/subscribe with coalescing. */
export class EventBus {
  #listeners = new Set<(batch: UpdateBatch) => void>();
  #pending: (StateUpdate | null)[] = [];
  #index = new Map<string, number>();
  /**
   * The windows' timer: one interval for a run of windows, each tick delivering what came in its
   * window, stopped by the first tick with nothing to deliver (issue 42). A timer per window, made
   * at the window's first update (a new `Timeout`, then `refresh()` of one), cost the service
   * 2.2 to 2.8% of its busy samples to arm under the action load, Deno inserting it into its
   * timer list each time; the interval 0.2 to 0.5% (docs/load.md). Null while no window is open.
   */
  #timer: unknown = null;
  #timers: IntervalTimers;
  #onTick = () => {
    if (this.#pending.length === 0) this.#disarm();
    else this.#deliver();
  };
  #seq = 0;
  #windowMs: number;

  /** Builds a bus; the default window is the `coalesceMs` setting's. */
  constructor(options: EventBusOptions = {}) {
    this.#windowMs = options.windowMs ?? SETTING_DEFAULTS.coalesceMs;
    this.#timers = options.timers ?? NODE_TIMERS;
  }

  /** Sequence number of the last delivered batch. */
  get seq(): number {
    return this.#seq;
  }

  /** Adds an update to the current batch. */
  publish(update: StateUpdate): void {
    if (update.updateType === "full") {
      this.#pending = [update];
      this.#index.clear();
    } else {
      const key = coalesceKey(update);
      const at = this.#index.get(key);
      if (at !== undefined) this.#pending[at] = null;
      this.#index.set(key, this.#pending.length);
      this.#pending.push(update);
    }
    this.#timer ??= this.#timers.setInterval(this.#onTick, this.#windowMs);
  }

  /** Delivers the current batch now (no-op when empty). */
  flush(): void {
    this.#disarm();
    this.#deliver();
  }

  /** Stops the windows' timer, if it runs. */
  #disarm(): void {
    if (this.#timer === null) return;
    this.#timers.clearInterval(this.#timer);
    this.#timer = null;
  }

  #deliver(): void {
    if (this.#pending.length === 0) return;
    const updates = this.#pending.filter((u): u is StateUpdate => u !== null);
    const batch: UpdateBatch = { seq: ++this.#seq, updates };
    this.#pending = [];
    this.#index.clear();
    for (const listener of this.#listeners) {
      try {
        listener(batch);
      } catch {
        // one failing subscriber must not starve the others
      }
    }
  }

  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: (batch: UpdateBatch) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops the timer and drops what is pending. */
  close(): void {
    this.#disarm();
    this.#pending = [];
    this.#index.clear();
    this.#listeners.clear();
  }
}

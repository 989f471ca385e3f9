/**
 * The coalescing event bus the transports subscribe to. Updates published
 * within one window go out as one batch, coalesced by the rule of
 * `protocol/coalesce.ts`: an update that supersedes an earlier one drops it
 * and takes its own place at the end, so a value that changed many times is
 * sent once, with its latest value, and the batch stays in the order of the
 * latest changes.
 * @module
 */
import { clearTimeout, setTimeout } from "node:timers";
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
  /** Milliseconds to gather a burst before delivering it; 0 delivers on the next macrotask. */
  windowMs?: number;
}

/** Publish/subscribe with coalescing. */
export class EventBus {
  #listeners = new Set<(batch: UpdateBatch) => void>();
  #pending: (StateUpdate | null)[] = [];
  #index = new Map<string, number>();
  /**
   * The window's timer: made once, then re-armed by `refresh()` for each window (issue 42), where
   * each window made a new `Timeout` and cleared the one that had just fired (in the service's
   * profile under the action load, 3.1 to 3.3% of its busy samples before, 2.3% after: the timer
   * list's insertion, Deno's own, remains; docs/load.md). Null until the first window and after
   * a `flush()` or `close()` cleared it.
   */
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** Whether the timer will fire: a window is open. */
  #isArmed = false;
  #onWindow = () => {
    this.#isArmed = false;
    this.#deliver();
  };
  #seq = 0;
  #windowMs: number;

  /** Builds a bus; the default window is the `coalesceMs` setting's. */
  constructor(options: EventBusOptions = {}) {
    this.#windowMs = options.windowMs ?? SETTING_DEFAULTS.coalesceMs;
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
    if (!this.#isArmed) this.#arm();
  }

  #arm(): void {
    this.#isArmed = true;
    if (this.#timer === null) this.#timer = setTimeout(this.#onWindow, this.#windowMs);
    else this.#timer.refresh();
  }

  /** Delivers the current batch now (no-op when empty). */
  flush(): void {
    this.#disarm();
    this.#deliver();
  }

  /** Stops the window's timer, if it is to fire: a cleared timer is not refreshed again. */
  #disarm(): void {
    if (!this.#isArmed) return;
    this.#isArmed = false;
    clearTimeout(this.#timer!);
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

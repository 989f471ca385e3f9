/**
 * Values on their way to the player, coalesced: calls that set the same
 * thing (one Control, one Target, the output level) run one at a time, and
 * while one runs only the latest value waits; a value replaced before it was
 * sent is answered with the outcome of the one that replaced it. So a desk
 * streaming `/control/*` keeps at most one call per Control at the player
 * and one waiting, however fast it sends: the player gets the last value of
 * each Control per round trip, never a queue it cannot take.
 * @module
 */
import { CueportError } from "../core/mod.ts";

/** Answers that may wait on one key's next call (replies asked of values it replaced). */
export const MAX_AWAITING = 1024;

/** A call that sets a value, and those waiting for its outcome. */
interface Waiting {
  call: () => unknown;
  settle: Array<PromiseWithResolvers<unknown>>;
}

/** The calls of one key: whether one runs, and the one waiting behind it. */
interface Slot {
  next: Waiting | null;
}

/** Runs value-setting calls coalesced by key. */
export class ValueCoalescer {
  #slots = new Map<string, Slot>();

  /** Keys with a call running. */
  get size(): number {
    return this.#slots.size;
  }

  /** Whether a call of `key` runs (a new one would wait behind it). */
  has(key: string): boolean {
    return this.#slots.has(key);
  }

  /**
   * Runs `call` now if no call of `key` runs, else after it, unless a later
   * call of the same key comes first (then this one is answered with that
   * one's outcome). A call whose outcome nobody awaits (`isAwaited` false:
   * no reply was asked) costs nothing while it waits: it resolves to null.
   * @throws {CueportError} RATE_LIMITED when `MAX_AWAITING` answers already wait on the key
   */
  run(key: string, call: () => unknown, isAwaited = true): Promise<unknown> | null {
    const slot = this.#slots.get(key);
    if (!slot) {
      this.#slots.set(key, { next: null });
      return this.#start(key, call);
    }
    const next = slot.next ??= { call, settle: [] };
    next.call = call;
    if (!isAwaited) return null;
    if (next.settle.length >= MAX_AWAITING) {
      throw new CueportError(
        "RATE_LIMITED",
        `Too many answers waiting for one value: at most ${MAX_AWAITING}`,
        { retryAfterSeconds: 1 },
      );
    }
    const waiter = Promise.withResolvers<unknown>();
    next.settle.push(waiter);
    return waiter.promise;
  }

  #start(key: string, call: () => unknown): Promise<unknown> {
    let outcome: Promise<unknown>;
    try {
      outcome = Promise.resolve(call());
    } catch (error) {
      outcome = Promise.reject(error);
    }
    const done = () => this.#done(key);
    outcome.then(done, done);
    return outcome;
  }

  #done(key: string): void {
    const slot = this.#slots.get(key);
    if (!slot) return;
    const next = slot.next;
    if (!next) {
      this.#slots.delete(key);
      return;
    }
    slot.next = null;
    this.#start(key, next.call).then(
      (value) => next.settle.forEach((w) => w.resolve(value)),
      (error) => next.settle.forEach((w) => w.reject(error)),
    );
  }
}

/**
 * The key of an action input that sets one value (SET_CONTROL, SET_PARAM,
 * OUTPUT_LEVEL_IN, well formed), or null for any other call.
 */
export function valueKey(input: unknown): string | null {
  if (typeof input !== "object" || input === null) return null;
  const { name, params, projectID } = input as {
    name?: unknown;
    params?: unknown;
    projectID?: unknown;
  };
  if (!Array.isArray(params)) return null;
  const project = typeof projectID === "string" ? projectID : "";
  if ((name === "SET_CONTROL" || name === "SET_PARAM") && params.length === 2) {
    const target = params[0];
    if (typeof target !== "string") return null;
    return `${name}|${project}|${name === "SET_CONTROL" ? target.toUpperCase() : target}`;
  }
  if (name === "OUTPUT_LEVEL_IN" && params.length === 1) return name;
  return null;
}

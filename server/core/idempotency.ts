/**
 * Safe retries: an action or edit sent with an idempotency key is applied at
 * most once. A retry with the same key within the window gets the first
 * outcome (result or error) instead of running again; a retry while the first
 * is still running waits for it. When the first outcome is unknown (the player
 * went down, or was declared hung, mid-request: NOT_READY), nothing is kept here: the retry goes to the player
 * with the same key, and the player, which keeps the keys it applied with the
 * state they changed, answers from its own record if it had applied it.
 * @module
 */
import { CueportError } from "./errors.ts";

/** How long and how many keys are kept. */
export interface IdempotencyLimits {
  /** A key is remembered this long after its first outcome (default 10 minutes). */
  windowMs: number;
  /** At most this many keys; the oldest are forgotten first (default 10,000). */
  maxKeys: number;
}

/** The default limits (docs/api.md, "Safe retries"). */
export const IDEMPOTENCY_LIMITS: IdempotencyLimits = { windowMs: 10 * 60_000, maxKeys: 10_000 };

/** Longest key accepted: a UUID fits four times over. */
const MAX_KEY_LENGTH = 128;

/**
 * Errors that are no outcome to keep: after them the player may or may not have applied the
 * request (TIMEOUT no longer comes from the player, whose requests have no deadline), or it
 * applied nothing and a retry may succeed (UNAVAILABLE: what the request needs is missing, or
 * a shader check made no progress, `CHECK_STALLED`, "send it again"; DISK_FULL: nothing was
 * kept, and the same request goes through once space is freed; GROUP_NO_QUORUM: a rig group's edit
 * refused before anything of it can be in, which goes through once the rig reaches its quorum;
 * GROUP_OUTCOME_UNKNOWN: the group's commit unanswered, its retry finds it in etcd or commits it).
 */
const UNKNOWN_OUTCOME = new Set([
  "NOT_READY",
  "TIMEOUT",
  "SERVER_ERROR",
  "CONNECTION_FAILED",
  "UNAVAILABLE",
  "DISK_FULL",
  "GROUP_NO_QUORUM",
  "GROUP_OUTCOME_UNKNOWN",
]);

interface Entry {
  fingerprint: string;
  at: number;
  outcome: Promise<unknown>;
}

/** A client's retry key, and who the client is (keys are per client). */
export interface RetryKey {
  /** The device id, or "local" / the address for clients without one. */
  client: string;
  key: string;
}

/**
 * Checks a client's key: printable ASCII, 1-128 characters.
 * @throws {CueportError} INVALID_MESSAGE naming the field
 */
export function checkIdempotencyKey(key: unknown, field: string): string {
  if (typeof key !== "string" || !/^[\x21-\x7e]{1,128}$/.test(key)) {
    throw new CueportError(
      "INVALID_MESSAGE",
      `${field} must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters (a UUID is a good key)`,
      { field },
    );
  }
  return key;
}

/**
 * A client's retry key, as every transport takes it: the key checked, and the
 * client named by its paired device (else by what its grant calls it: "local").
 * @throws {CueportError} INVALID_MESSAGE naming `field`
 */
export function retryKeyOf(
  who: { deviceId?: string | undefined; device: string },
  key: unknown,
  field: string,
): RetryKey {
  return { client: who.deviceId ?? who.device, key: checkIdempotencyKey(key, field) };
}

/** The keys seen recently, per client. */
export class IdempotencyStore {
  #entries = new Map<string, Entry>();
  #limits: IdempotencyLimits;
  #now: () => number;

  /** `now` is the wall clock in ms (tests pass their own). */
  constructor(limits: IdempotencyLimits = IDEMPOTENCY_LIMITS, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Keys kept now (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Runs `run` once per `client` and `key`: a repeat gets the first outcome.
   * `fingerprint` is what was asked (kind and body): the same key for
   * something else is refused.
   * @throws {CueportError} IDEMPOTENCY_KEY_REUSED, or the first outcome's error
   */
  run<T>(client: string, key: string, fingerprint: string, run: () => Promise<T>): Promise<T> {
    const id = `${client}\u0000${key}`;
    const now = this.#now();
    this.#expire(now);
    const known = this.#entries.get(id);
    if (known) {
      if (known.fingerprint !== fingerprint) {
        return Promise.reject(
          new CueportError(
            "IDEMPOTENCY_KEY_REUSED",
            "This Idempotency-Key was already used for a different request: use a new key for each request",
          ),
        );
      }
      return known.outcome as Promise<T>;
    }
    const outcome = run();
    this.#entries.set(id, { fingerprint, at: now, outcome });
    outcome.catch((error) => {
      // An unknown outcome is not an outcome: the retry runs (and the player decides).
      if (UNKNOWN_OUTCOME.has((error as CueportError).code)) this.#entries.delete(id);
    });
    while (this.#entries.size > this.#limits.maxKeys) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    return outcome;
  }

  #expire(now: number): void {
    // Entries are in insertion order, so the oldest come first.
    for (const [id, entry] of this.#entries) {
      if (now - entry.at <= this.#limits.windowMs) break;
      this.#entries.delete(id);
    }
  }
}

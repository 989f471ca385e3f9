/**
 * The one rate limit of the service, shared by every transport: a token
 * bucket per remote address, bounded in memory. The budget is counted in HTTP
 * requests; each transport takes from it through a `RateMeter` whose messages
 * cost what its own setting makes them (a WebSocket message costs
 * `httpRatePerSecond / wsRatePerSecond` of a request). So an address that
 * floods one transport is slowed on all of them. Local clients (127.0.0.1,
 * ::1) are never limited, decided here for every transport: a meter lets
 * them through, so no transport tests an address before it meters.
 * @module
 */
import { CueportError } from "../core/errors.ts";
import { isLocalAddress } from "./credentials.ts";

/** The budget of each remote address. */
export interface RateLimitOptions {
  /** Requests per second an address earns. */
  ratePerSecond: number;
  /** Requests an address may send at once. */
  burst: number;
  /** Most addresses tracked; idle ones are dropped first. */
  maxAddresses?: number;
  /**
   * Whether local clients pass without taking (default true: the one budget
   * of the transports). A guard that is not a budget, such as one log line
   * a minute per sender, sets false: it holds for local clients too.
   */
  exemptsLocal?: boolean;
  now?: () => number;
}

/** One transport's view of the shared budget. */
export interface RateMeter {
  /**
   * Takes `count` of its units (default one: an OSC pattern takes one per
   * address it matches), all or none; nothing from a local client unless
   * the limiter was made with `exemptsLocal: false`.
   * @throws {CueportError} RATE_LIMITED with `retryAfterSeconds` when the address is over its budget
   */
  take(address: string, count?: number): void;
}

/** Token buckets by client address, shared by the transports. */
export class RateLimiter {
  #buckets = new Map<string, { tokens: number; at: number }>();
  #o: Required<RateLimitOptions>;

  /** Builds the limiter. */
  constructor(options: RateLimitOptions) {
    this.#o = {
      maxAddresses: 10_000,
      exemptsLocal: true,
      now: () => performance.now(),
      ...options,
    };
  }

  /**
   * A meter for a transport that allows `perSecond` of its `units` (the
   * word of a refusal: "requests", "messages") from an address that sends
   * nothing else: each costs `ratePerSecond / perSecond` of the budget.
   */
  meter(units: string, perSecond: number): RateMeter {
    const cost = this.#o.ratePerSecond / perSecond;
    return {
      take: (address, count = 1) => {
        if (this.#o.exemptsLocal && isLocalAddress(address)) return;
        const retryAfterSeconds = this.#take(address, cost * count);
        if (retryAfterSeconds === 0) return;
        throw new CueportError(
          "RATE_LIMITED",
          `Too many ${units}: over ${perSecond} per second`,
          { retryAfterSeconds },
        );
      },
    };
  }

  /** Takes `cost` from the address's bucket: 0 when it had enough, else the seconds until it has. */
  #take(address: string, cost: number): number {
    const now = this.#o.now();
    let bucket = this.#buckets.get(address);
    if (!bucket) {
      if (this.#buckets.size >= this.#o.maxAddresses) {
        // Drop the first-inserted (the oldest) addresses: memory stays bounded.
        for (const key of [...this.#buckets.keys()].slice(0, this.#buckets.size / 10 + 1)) {
          this.#buckets.delete(key);
        }
      }
      bucket = { tokens: this.#o.burst, at: now };
      this.#buckets.set(address, bucket);
    }
    bucket.tokens = Math.min(
      this.#o.burst,
      bucket.tokens + ((now - bucket.at) / 1000) * this.#o.ratePerSecond,
    );
    bucket.at = now;
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return 0;
    }
    return Math.max(1, Math.ceil((cost - bucket.tokens) / this.#o.ratePerSecond));
  }
}

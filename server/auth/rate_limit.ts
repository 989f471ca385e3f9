/**
 * Per-address request limits for HTTP: a token bucket for each client
 * address, bounded in memory.
 * @module
 */
import { CueportError } from "../core/mod.ts";

/** Limits per address. */
export interface RateLimitOptions {
  ratePerSecond: number;
  burst: number;
  /** Most addresses tracked; idle ones are dropped first. */
  maxAddresses?: number;
  now?: () => number;
}

/** Token buckets by client address. */
export class RateLimiter {
  #buckets = new Map<string, { tokens: number; at: number }>();
  #o: Required<RateLimitOptions>;

  /** Builds the limiter. */
  constructor(options: RateLimitOptions) {
    this.#o = { maxAddresses: 10_000, now: () => performance.now(), ...options };
  }

  /** @throws {CueportError} RATE_LIMITED with `retryAfterSeconds` when the address is over its limit */
  take(address: string): void {
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
    if (bucket.tokens >= 1) {
      bucket.tokens--;
      return;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.#o.ratePerSecond));
    throw new CueportError(
      "RATE_LIMITED",
      `Too many requests: over ${this.#o.ratePerSecond} per second`,
      {
        retryAfterSeconds,
      },
    );
  }
}

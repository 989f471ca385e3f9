/**
 * A token bucket per peer address on the local clock: `rate` answers a second, `burst` at once.
 * At most `maxPeers` addresses are tracked (the group's members; the least recently seen go).
 * @module
 */

interface Bucket {
  tokens: number;
  at: number;
}

/** Requests let through per peer. */
export class PeerBudget {
  #buckets = new Map<string, Bucket>();
  #rate: number;
  #burst: number;
  #maxPeers: number;

  /** `rate` per second, `burst` at once, for at most `maxPeers` addresses. */
  constructor(options: { rate: number; burst: number; maxPeers: number }) {
    this.#rate = options.rate / 1000;
    this.#burst = options.burst;
    this.#maxPeers = options.maxPeers;
  }

  /** Whether `address` may have one more answer at local time `now` (and takes it). */
  take(address: string, now: number): boolean {
    const bucket = this.#buckets.get(address) ?? { tokens: this.#burst, at: now };
    this.#buckets.delete(address); // re-inserted last: the map's order is recency
    bucket.tokens = Math.min(
      this.#burst,
      bucket.tokens + this.#rate * Math.max(0, now - bucket.at),
    );
    bucket.at = now;
    this.#buckets.set(address, bucket);
    if (this.#buckets.size > this.#maxPeers) {
      this.#buckets.delete(this.#buckets.keys().next().value!);
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}

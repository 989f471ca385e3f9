/**
 * What the mDNS responder spends on a flood: packets are admitted before they
 * are decoded (per source address and in all), and unicast answers are
 * limited per destination, so a forged source cannot turn the responder into
 * a reflector and a query flood costs the service little.
 * @module
 */

/** A token bucket per key, with a bounded number of keys. */
export class KeyedBuckets {
  #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly maxKeys = 4096,
  ) {}

  /** Takes one token of `key` at `now` (ms); false when its bucket is empty. */
  take(key: string, now: number): boolean {
    let bucket = this.#buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(
        this.burst,
        bucket.tokens + (now - bucket.at) * this.ratePerSecond / 1000,
      );
      bucket.at = now;
      this.#buckets.delete(key); // to the end: the map's order is the order of use
    } else {
      if (this.#buckets.size >= this.maxKeys) {
        this.#buckets.delete(this.#buckets.keys().next().value!);
      }
      bucket = { tokens: this.burst, at: now };
    }
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}

/** The limits (docs/discovery.md, "Limits"). */
export const MDNS_LIMITS = {
  /** Packets decoded per source address: 50 a second, bursts of 100. */
  perSource: { ratePerSecond: 50, burst: 100 },
  /** Packets decoded in all: 1,000 a second, bursts of 2,000. */
  total: { ratePerSecond: 1000, burst: 2000 },
  /** Unicast answers per destination address: 5 a second, bursts of 10. */
  unicastAnswers: { ratePerSecond: 5, burst: 10 },
  /** A record is multicast on a link at most once a second (RFC 6762 s.6.2), 250 ms to defend. */
  multicastGapMs: 1000,
  probeDefenceGapMs: 250,
} as const;

/** Decides which received packets are decoded at all. */
export class IngressBudget {
  #perSource = new KeyedBuckets(MDNS_LIMITS.perSource.ratePerSecond, MDNS_LIMITS.perSource.burst);
  #total = new KeyedBuckets(MDNS_LIMITS.total.ratePerSecond, MDNS_LIMITS.total.burst);
  /** Packets refused since the start. */
  dropped = 0;

  /** Whether a packet from `address` may be decoded now. */
  admit(address: string, now: number = performance.now()): boolean {
    const ok = this.#perSource.take(address, now) && this.#total.take("", now);
    if (!ok) this.dropped++;
    return ok;
  }
}

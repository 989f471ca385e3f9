/**
 * The bytes the OSC port may send one remote address: replies, feedback and
 * refusals all take from one token bucket per address (at
 * `oscSendBytesPerSecond`, a burst of four seconds' worth). A UDP source
 * address can be forged, so without it a 24-byte `/get/active` naming a
 * victim's address returned 9,688 bytes there, and a forged `/subscribe`
 * sent it a stream; with it, what any address receives is bounded, however
 * many datagrams name it. Local addresses are not limited (their datagrams
 * cannot come from the network).
 * @module
 */

/** Options of the budget. */
export interface SendBudgetOptions {
  bytesPerSecond: number;
  /** The burst, bytes; default four seconds' worth. */
  burst?: number;
  /** Most addresses tracked; the oldest go first. */
  maxAddresses?: number;
  now?: () => number;
}

/** Byte buckets by destination address. */
export class SendBudget {
  #buckets = new Map<string, { bytes: number; at: number }>();
  #rate: number;
  #burst: number;
  #max: number;
  #now: () => number;
  /** Bytes not sent because an address was over its budget, since start. */
  withheld = 0;

  /** Builds the budget. */
  constructor(options: SendBudgetOptions) {
    this.#rate = options.bytesPerSecond;
    this.#burst = options.burst ?? options.bytesPerSecond * 4;
    this.#max = options.maxAddresses ?? 10_000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** The bytes `address` may be sent now. */
  available(address: string): number {
    const bucket = this.#bucket(address);
    return bucket.bytes;
  }

  /** Takes `bytes` from the address's budget if it has them; false (and counted) if not. */
  take(address: string, bytes: number): boolean {
    const bucket = this.#bucket(address);
    if (bucket.bytes < bytes) {
      this.withheld += bytes;
      return false;
    }
    bucket.bytes -= bytes;
    return true;
  }

  #bucket(address: string): { bytes: number; at: number } {
    const now = this.#now();
    let bucket = this.#buckets.get(address);
    if (!bucket) {
      if (this.#buckets.size >= this.#max) {
        for (const key of [...this.#buckets.keys()].slice(0, this.#max / 10 + 1)) {
          this.#buckets.delete(key);
        }
      }
      bucket = { bytes: this.#burst, at: now };
      this.#buckets.set(address, bucket);
      return bucket;
    }
    bucket.bytes = Math.min(this.#burst, bucket.bytes + ((now - bucket.at) / 1000) * this.#rate);
    bucket.at = now;
    return bucket;
  }
}

/**
 * The network edge of the MIDI session ports, as OSC's: every datagram is
 * metered per sender address before anything reads it, in datagrams and in
 * bytes (token buckets of `server/auth/rate_limit.ts`); one over either
 * budget (or, when given, over the service's shared budget) is dropped
 * unread. Local senders pass unless told otherwise, as in the service's own
 * limit.
 * @module
 */
import { RateLimiter, type RateMeter } from "../../auth/rate_limit.ts";

/** The budget of each sender address. */
export interface EdgeBudget {
  /** Datagrams a second an address may send (default 2,000: a fast fader bank and clock). */
  datagramsPerSecond?: number;
  /** Bytes a second an address may send (default 1 MiB). */
  bytesPerSecond?: number;
  /** How many seconds of the budget may arrive at once (default 1). */
  burstSeconds?: number;
  /** Whether local senders (127.0.0.1, ::1) pass unmetered (default true). */
  exemptsLocal?: boolean;
  /**
   * The service's shared budget (`RateLimiter.meter`), taken once a datagram besides the
   * session's own, so an address that floods one transport is slowed on all of them.
   */
  shared?: RateMeter;
  now?: () => number;
}

/** Decides, per datagram, whether its sender is within budget. */
export class DatagramMeter {
  #count: RateMeter;
  #bytes: RateMeter;
  #shared: RateMeter | undefined;
  /** Datagrams dropped for being over budget, since start. */
  dropped = 0;

  /** Builds the meter for `budget`. */
  constructor(budget: EdgeBudget = {}) {
    const perSecond = budget.datagramsPerSecond ?? 2000;
    const bytes = budget.bytesPerSecond ?? 1 << 20;
    const burst = budget.burstSeconds ?? 1;
    const common = {
      exemptsLocal: budget.exemptsLocal ?? true,
      ...(budget.now ? { now: budget.now } : {}),
    };
    this.#count = new RateLimiter({ ratePerSecond: perSecond, burst: perSecond * burst, ...common })
      .meter("datagrams", perSecond);
    this.#bytes = new RateLimiter({ ratePerSecond: bytes, burst: bytes * burst, ...common })
      .meter("bytes", bytes);
    this.#shared = budget.shared;
  }

  /** Whether a datagram of `size` bytes from `address` may be read. */
  allow(address: string, size: number): boolean {
    try {
      this.#count.take(address);
      this.#bytes.take(address, size);
      this.#shared?.take(address);
      return true;
    } catch {
      this.dropped++;
      return false;
    }
  }
}

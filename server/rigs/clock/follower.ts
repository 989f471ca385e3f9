/**
 * Keeps this rig's show clock on the leader's: every `intervalMs` a burst to the leader, its best
 * sample into the leader's filter, the filter's estimate into the show clock. When this rig
 * leads, its show clock is the reference and keeps its mapping (so a failover does not move
 * show time: the new leader's show time already agreed with the old one's within its error).
 * @module
 */
import type { BurstOptions, ClockExchange, ClockPeer } from "./exchange.ts";
import { type ClockEstimate, ClockFilter, type ClockFilterOptions } from "./filter.ts";
import type { LocalClock } from "./local_clock.ts";
import type { Correction, ShowClock } from "./show_clock.ts";

/** Options of a `ClockFollower`. */
export interface ClockFollowerOptions {
  /** Between two bursts to the leader, ms (1000). */
  readonly intervalMs?: number;
  readonly burst?: BurstOptions;
  readonly filter?: ClockFilterOptions;
}

/** What one poll of the leader found. */
export interface PollResult {
  /** The filter's estimate after it, or null (no answer yet). */
  readonly estimate: ClockEstimate | null;
  /** What the show clock did with it, or null when nothing (no answer, or this rig leads). */
  readonly correction: Correction | null;
}

/** The clock's part of `group status` and `/health`: plain JSON (no Infinity: null). */
export interface ClockStatus {
  /** Whether this rig's show time is the group's reference, follows it, or neither yet. */
  readonly role: "leader" | "follower" | "unsynced";
  /** The exchange this rig follows; null when it leads. */
  readonly leader: ClockPeer | null;
  /** Show time minus this rig's clock, ms. */
  readonly offsetMs: number;
  /** How far show time may be from the leader's, ms; null before the first correction. */
  readonly errorMs: number | null;
  /** The leader's samples' jitter and the chosen one's delay, ms; null without samples. */
  readonly jitterMs: number | null;
  readonly delayMs: number | null;
  /** Corrections stepped and slewed so far. */
  readonly steps: number;
  readonly slews: number;
}

/** Follows the leader's show time (or leads). */
export class ClockFollower {
  #exchange: ClockExchange;
  #show: ShowClock;
  #local: LocalClock;
  #options: ClockFollowerOptions;
  #leader: ClockPeer | null = null;
  #filter: ClockFilter;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #isClosed = false;
  #polling: Promise<void> = Promise.resolve();

  /** Neither leads nor follows until `follow`. */
  constructor(
    parts: { exchange: ClockExchange; show: ShowClock; local: LocalClock },
    options: ClockFollowerOptions = {},
  ) {
    this.#exchange = parts.exchange;
    this.#show = parts.show;
    this.#local = parts.local;
    this.#options = options;
    this.#filter = new ClockFilter(options.filter);
  }

  /** Follows `leader`'s exchange, or leads when it is null (this rig was elected). */
  follow(leader: ClockPeer | null): void {
    const same = leader !== null && this.#leader !== null &&
      leader.hostname === this.#leader.hostname && leader.port === this.#leader.port;
    if (!same) this.#filter.clear();
    this.#leader = leader;
    if (leader === null) this.#show.lead();
  }

  /** The leader's clock as the filter knows it now, or null. */
  get estimate(): ClockEstimate | null {
    return this.#leader === null ? null : this.#filter.estimate(this.#local.now());
  }

  /** What `group status` says of this rig's clock. */
  status(): ClockStatus {
    const estimate = this.estimate;
    const error = this.#show.error;
    return {
      role: this.#show.isLeading ? "leader" : this.#leader !== null ? "follower" : "unsynced",
      leader: this.#leader,
      offsetMs: this.#show.offset,
      errorMs: Number.isFinite(error) ? error : null,
      jitterMs: estimate?.jitter ?? null,
      delayMs: estimate?.delay ?? null,
      ...this.#show.corrections,
    };
  }

  /** One burst to the leader and its correction (nothing when this rig leads). */
  async poll(): Promise<PollResult> {
    const leader = this.#leader;
    if (leader === null) return { estimate: null, correction: null };
    const sample = await this.#exchange.measure(leader, this.#options.burst);
    if (this.#leader !== leader) return { estimate: null, correction: null }; // changed meanwhile
    if (sample !== null) this.#filter.add(sample);
    const estimate = this.#filter.estimate(this.#local.now());
    if (sample === null || estimate === null) return { estimate, correction: null };
    return { estimate, correction: this.#show.correct(estimate.offset, estimate.error) };
  }

  /** Polls every `intervalMs` until `close`. */
  start(): void {
    const next = () => {
      if (this.#isClosed) return;
      this.#timer = setTimeout(() => {
        this.#polling = this.poll().then(() => {}, () => {}).finally(next);
      }, this.#options.intervalMs ?? 1000);
    };
    next();
  }

  /** Stops polling; resolves once a poll in progress has ended (its burst's waits bound it). */
  async close(): Promise<void> {
    this.#isClosed = true;
    clearTimeout(this.#timer);
    await this.#polling;
  }
}

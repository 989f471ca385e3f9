/**
 * Feedback subscribers, each keyed by its own address and port. A
 * subscription lasts `ttlMs` (a lease) unless renewed (`/subscribe` again,
 * or `/ping`), so a desk that was switched off stops costing anything.
 * @module
 */
import { didYouMean } from "../../lib/suggest.ts";
import { UpdateType } from "../../protocol/state.ts";
import { CueportError } from "../core/mod.ts";
import type { DatagramSocket } from "../net/mod.ts";
import type { Feedback } from "./feedback.ts";

/** What a subscriber asked for. */
export interface FeedbackFilter {
  /** Update types it wants; null: all. */
  types: ReadonlySet<string> | null;
  /** The Project it follows; null: the active one. */
  projectId: string | null;
  /** Address prefixes it wants (`/control`); empty: all. */
  prefixes: readonly string[];
}

/** One subscriber. */
export interface Subscriber {
  /** `host|port`. */
  key: string;
  /** Where feedback goes, as the socket gave it. */
  hostname: string;
  port: number;
  /** The sender's address in plain form (what it is allowed by). */
  address: string;
  /** A local sender: not held to the share of one address. */
  isLocal: boolean;
  /** The socket it subscribed through: feedback leaves from the port it sent to. */
  socket: DatagramSocket;
  /** The paired device it acts as, if one. */
  deviceId: string | undefined;
  filter: FeedbackFilter;
  expiresAt: number;
}

/** Limits of the subscriber table. */
export const SUBSCRIPTION_LIMITS = { maxSubscribers: 256, maxPerAddress: 16 } as const;

const TYPES = new Set<string>(UpdateType.options.filter((t) => t !== "full"));

/**
 * A filter from `/subscribe` arguments: update types (`playstate`,
 * `volume`...), `project=<id>`, address prefixes (`/control`).
 * @throws {CueportError} INVALID_MESSAGE naming a bad argument
 */
export function parseFilter(values: readonly unknown[]): FeedbackFilter {
  const types = new Set<string>();
  const prefixes: string[] = [];
  let projectId: string | null = null;
  values.forEach((value, position) => {
    const text = typeof value === "string" ? value.trim() : "";
    if (text.startsWith("/")) prefixes.push(text);
    else if (text.startsWith("project=") && text.length > 8) projectId = text.slice(8);
    else if (TYPES.has(text)) types.add(text);
    else {
      throw new CueportError(
        "INVALID_MESSAGE",
        `Invalid args[${position}]: expected an update type (${[...TYPES].join(", ")}), ` +
          `project=<id> or an address prefix such as /control, got ${JSON.stringify(value)}` +
          didYouMean(text, TYPES),
        { field: `args[${position}]` },
      );
    }
  });
  return { types: types.size ? types : null, projectId, prefixes };
}

/** Whether a feedback message passes a subscriber's filter (`activeProjectId` for the default). */
export function passes(
  filter: FeedbackFilter,
  message: Feedback,
  activeProjectId: string | null,
): boolean {
  if (filter.types && !filter.types.has(message.updateType)) return false;
  if (message.projectId !== null && message.projectId !== (filter.projectId ?? activeProjectId)) {
    return false;
  }
  return filter.prefixes.length === 0 || filter.prefixes.some((p) => message.address.startsWith(p));
}

/** The subscribers. */
export class Subscriptions {
  #subscribers = new Map<string, Subscriber>();
  #ttlMs: number;
  #now: () => number;

  /** `now` is injectable so tests see a lease expire without waiting. */
  constructor(options: { ttlMs: number; now?: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? (() => performance.now());
  }

  /** The lease, ms. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  /**
   * Adds or renews (with a new filter) a subscriber.
   * @throws {CueportError} RATE_LIMITED when the table or the address's share is full
   */
  add(subscriber: Omit<Subscriber, "expiresAt">): Subscriber {
    this.sweep();
    if (!this.#subscribers.has(subscriber.key)) {
      const ofAddress = [...this.#subscribers.values()].filter((s) =>
        s.address === subscriber.address
      );
      if (
        (!subscriber.isLocal && ofAddress.length >= SUBSCRIPTION_LIMITS.maxPerAddress) ||
        this.#subscribers.size >= SUBSCRIPTION_LIMITS.maxSubscribers
      ) {
        throw new CueportError(
          "RATE_LIMITED",
          `Too many subscribers: at most ${SUBSCRIPTION_LIMITS.maxPerAddress} per remote address and ` +
            `${SUBSCRIPTION_LIMITS.maxSubscribers} in all; unsubscribe or let one expire`,
          { retryAfterSeconds: Math.ceil(this.#ttlMs / 1000) },
        );
      }
    }
    const added = { ...subscriber, expiresAt: this.#now() + this.#ttlMs };
    this.#subscribers.set(subscriber.key, added);
    return added;
  }

  /** Extends a subscriber's lease; false when it has none. */
  renew(key: string): boolean {
    const subscriber = this.#subscribers.get(key);
    if (!subscriber || subscriber.expiresAt <= this.#now()) return false;
    subscriber.expiresAt = this.#now() + this.#ttlMs;
    return true;
  }

  /** Ends a subscription; false when there was none. */
  remove(key: string): boolean {
    return this.#subscribers.delete(key);
  }

  /** Ends every subscription of a device (revoked) or an address. */
  removeWhere(test: (subscriber: Subscriber) => boolean): void {
    for (const [key, subscriber] of this.#subscribers) {
      if (test(subscriber)) this.#subscribers.delete(key);
    }
  }

  /** Drops expired leases. */
  sweep(): void {
    const now = this.#now();
    for (const [key, subscriber] of this.#subscribers) {
      if (subscriber.expiresAt <= now) this.#subscribers.delete(key);
    }
  }

  /** The subscribers whose lease runs. */
  live(): Subscriber[] {
    this.sweep();
    return [...this.#subscribers.values()];
  }

  /** How many subscribers there are, expired ones not counted. */
  get size(): number {
    this.sweep();
    return this.#subscribers.size;
  }
}

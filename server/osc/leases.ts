/**
 * The leases of OSC feedback: `/subscribe [filter...]` runs the catalog's
 * `oscSubscribe` through the one policy, which leases this sender's
 * subscription (`subscriptions.ts`), answers, then sends its current values;
 * `/ping` renews a lease and reports the port's health; `/unsubscribe` ends
 * it. A subscriber is keyed by the address and port feedback goes to.
 * @module
 */
import type { Grant } from "../auth/mod.ts";
import { type Caller, type Core, operationNamed, type Policy } from "../core/mod.ts";
import { type OscValue, splitOptions } from "./coerce.ts";
import type { FanOut } from "./fan_out.ts";
import type { Outbox, Peer } from "./outbox.ts";
import {
  type FeedbackFilter,
  parseFilter,
  type Subscriber,
  type Subscriptions,
} from "./subscriptions.ts";

/** What `/subscribe` runs: the catalog's lease of OSC feedback. */
export const SUBSCRIBE = operationNamed("oscSubscribe");

/** The port's counters a `/ping` reply reports. */
export interface PortStats {
  /** Datagrams read. */
  datagrams: number;
  /** Datagrams the port's reader dropped. */
  dropped: number;
  /** Calls that ended in an error. */
  failed: number;
}

/** Options of the leases. */
export interface LeasesOptions {
  core: Core;
  policy: Policy;
  subscriptions: Subscriptions;
  fanOut: FanOut;
  outbox: Outbox;
  /** The service's version, in the `/ping` reply. */
  version: string;
  /** The port's counters now. */
  stats: () => PortStats;
}

/** `/subscribe`, `/ping` and `/unsubscribe` of senders that may send. */
export class Leases {
  #o: LeasesOptions;

  /** Builds the leases over the server's subscriptions. */
  constructor(options: LeasesOptions) {
    this.#o = options;
  }

  /** `/subscribe`: leases the sender its feedback, answers, then sends its current values. */
  subscribe(values: OscValue[], peer: Peer, grant: Grant): void {
    const { policy, outbox } = this.#o;
    let port = peer.port;
    try {
      const { values: rest, options } = splitOptions(values, new Set());
      if (typeof options.reply === "number") port = options.reply;
      const caller: Caller = { address: peer.address, isLocal: peer.isLocal, grant };
      let leased: { subscriber: Subscriber; filter: FeedbackFilter } | null = null;
      const lease = (filter: readonly unknown[]) => {
        leased = this.#lease(filter, { peer, port, grant });
        return this.#leaseView(leased.filter);
      };
      const data = policy.invoke(SUBSCRIBE, caller, { filter: rest }, {
        where: "/subscribe",
        context: { oscFeedback: lease },
      });
      outbox.reply(peer, port, "/subscribe", { data });
      // Then its current values (`oscSubscribe` runs at once: the sender's grant is given).
      this.#o.fanOut.current(leased!.subscriber);
    } catch (error) {
      outbox.replyError(peer, port, "/subscribe", error);
    }
  }

  /** `/ping` renews a lease and answers; `/unsubscribe` ends it. */
  renew(address: "/ping" | "/unsubscribe", values: OscValue[], peer: Peer): void {
    const { outbox, subscriptions } = this.#o;
    let port = peer.port;
    try {
      const { options } = splitOptions(values, new Set());
      if (typeof options.reply === "number") port = options.reply;
    } catch (error) {
      return outbox.replyError(peer, port, address, error);
    }
    const key = `${peer.hostname}|${port}`;
    const data = address === "/ping"
      ? {
        ok: true,
        version: this.#o.version,
        ready: this.#o.core.isReady,
        subscribed: subscriptions.renew(key),
        ...this.#o.stats(),
      }
      : { ok: true, unsubscribed: subscriptions.remove(key) };
    outbox.reply(peer, port, address, { data });
  }

  /** `oscSubscribe` for this sender: its subscription (the current values are sent after the answer). */
  #lease(filterArgs: readonly unknown[], to: { peer: Peer; port: number; grant: Grant }) {
    const { peer, port, grant } = to;
    const filter = parseFilter(filterArgs);
    const subscriber = this.#o.subscriptions.add({
      key: `${peer.hostname}|${port}`,
      hostname: peer.hostname,
      port,
      address: peer.address,
      isLocal: peer.isLocal,
      socket: peer.socket,
      deviceId: grant.deviceId,
      filter,
    });
    return { subscriber, filter };
  }

  /** The answer of `/subscribe`: its lease and the filter as understood. */
  #leaseView(filter: FeedbackFilter) {
    return {
      ok: true,
      leaseSeconds: this.#o.subscriptions.ttlMs / 1000,
      filter: {
        types: filter.types ? [...filter.types] : null,
        projectId: filter.projectId,
        prefixes: filter.prefixes,
      },
    };
  }
}

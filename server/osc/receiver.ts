/**
 * The receiving side of the OSC port: each datagram of the port's reader is
 * metered (remote senders), decoded (`decode.ts`, npm `osc-min`), its
 * bundles run at their time (`bundles.ts`), and each message routed: the
 * port's own addresses (`/connect`, `/subscribe`, `/ping`, `/unsubscribe`),
 * else matched against the address table, charged what its calls cost and
 * handed to the dispatch. Only a sender that may send hears of a refusal in
 * full (`outbox.ts`).
 * @module
 */
import type * as osc from "osc-min";
import type { Grant } from "../auth/mod.ts";
import { isLocalAddress } from "../auth/mod.ts";
import type { RateMeter } from "../auth/rate_limit.ts";
import { CueportError, unexpectedOf } from "../core/mod.ts";
import { type DatagramSocket, normalizeAddress, type UdpPort } from "../net/mod.ts";
import { bundleKey, type BundleScheduler, senderKey, timetagMs } from "./bundles.ts";
import { type OscValue, plainValue, splitOptions } from "./coerce.ts";
import { connect, type ConnectContext } from "./connect.ts";
import { decodePacket } from "./decode.ts";
import type { Dispatch } from "./dispatch.ts";
import type { Leases } from "./leases.ts";
import { type Match, matchAddress, type PatternValues } from "./match.ts";
import type { Outbox, Peer, ReplyTo } from "./outbox.ts";
import { encodeError } from "./replies.ts";

/** Bundles nest at most this deep. */
const MAX_BUNDLE_DEPTH = 8;

/** What the receiver routes to, and what it meters and decides with. */
export interface ReceiverOptions {
  /** The service's rate limit, as OSC takes from it (remote senders only). */
  rateLimit: RateMeter;
  /** The grant a sender acts under, or null when it must pair first. */
  grantOf: (peer: { address: string; isLocal: boolean }) => Grant | null;
  outbox: Outbox;
  dispatch: Dispatch;
  leases: Leases;
  /** What `/connect` needs. */
  connect: ConnectContext;
  scheduler: BundleScheduler;
  /**
   * Whether this service is a rig of a group: then each message of a timetagged bundle carries a
   * key (`bundleKey`: its sender, the timetag), any other its sender's (`senderKey`), so copies
   * sent to every rig run once (docs/rigs.md, "One action sent to every rig runs once").
   */
  inGroup?: () => boolean;
  /** The ids a pattern (`/clip/*`) expands over. */
  patternValues: PatternValues;
  /** Where a datagram that failed unexpectedly is logged. */
  logFault?: ((message: string) => void) | undefined;
}

/** Reads the datagrams of the ports and routes their messages. */
export class Receiver {
  #o: ReceiverOptions;
  #ports: UdpPort[] = [];
  #datagrams = 0;

  /** Builds the receiver; it reads nothing until given a port. */
  constructor(options: ReceiverOptions) {
    this.#o = options;
  }

  /** Datagrams read, since start. */
  get datagrams(): number {
    return this.#datagrams;
  }

  /** Datagrams the ports' readers dropped, since start. */
  get dropped(): number {
    return this.#ports.reduce((sum, p) => sum + p.dropped, 0);
  }

  /** Serves the datagrams of a port until it closes. */
  serve(port: UdpPort): Promise<void> {
    this.#ports.push(port);
    return port.serve((data, hostname, from, socket) => {
      this.#datagrams++;
      try {
        this.#receive(data, hostname, from, socket);
      } catch (error) {
        this.#o.logFault?.(`OSC datagram failed: ${unexpectedOf(error) ?? String(error)}`);
      }
    });
  }

  #receive(data: Uint8Array, hostname: string, port: number, socket: DatagramSocket): void {
    const address = normalizeAddress(hostname);
    const isLocal = isLocalAddress(address);
    const peer: Peer = {
      hostname,
      port,
      address,
      isLocal,
      socket,
      size: data.length,
      isPrepaid: true,
    };
    try {
      this.#o.rateLimit.take(address); // local senders pass: the meter decides (`rate_limit.ts`)
    } catch (error) {
      this.#o.outbox.refuse(peer, "", error);
      return;
    }
    let packet: osc.OscPacketOutput;
    try {
      if (data.length === 0 || data.length % 4 !== 0) {
        throw new CueportError(
          "INVALID_MESSAGE",
          `Invalid OSC packet: its size must be a multiple of 4 bytes, got ${data.length}`,
        );
      }
      packet = decodePacket(data);
    } catch (error) {
      const refusal = error instanceof CueportError
        ? error
        : new CueportError("INVALID_MESSAGE", `Invalid OSC packet: ${(error as Error).message}`);
      // Only a sender that may send hears of it; anyone else's garbage is dropped.
      if (this.#o.grantOf(peer)) this.#o.outbox.send(peer, peer.port, encodeError(refusal));
      return;
    }
    this.#packet(packet, peer, 0);
  }

  #packet(packet: osc.OscPacketOutput, peer: Peer, depth: number, key?: string | null): void {
    const { outbox } = this.#o;
    if (packet.oscType === "message") {
      // In a group, a message without a bundle's key is known by its sender (a desk's copies).
      const own = key ?? (this.#o.inGroup?.() === true ? senderKey(peer.address) : undefined);
      this.#message(packet, peer, own);
      return;
    }
    if (depth >= MAX_BUNDLE_DEPTH) {
      const error = new CueportError(
        "INVALID_MESSAGE",
        `Invalid bundle: bundles nest at most ${MAX_BUNDLE_DEPTH} deep`,
      );
      outbox.reply(peer, peer.port, "#bundle", { error });
      return;
    }
    const keyed = this.#o.inGroup?.() === true;
    const runAll = () => {
      packet.elements.forEach((element, i) => {
        const own = keyed ? bundleKey(peer.address, packet.timetag, i) : null;
        this.#packet(element, peer, depth + 1, own ?? (key && `${key}.${i}`));
      });
    };
    const at = timetagMs(packet.timetag);
    const delay = at === null ? 0 : at - Date.now();
    if (delay <= 0) return runAll();
    if (!this.#o.grantOf(peer)) {
      return outbox.refuseUnpaired(peer, "#bundle");
    }
    try {
      this.#o.scheduler.schedule(delay, runAll);
    } catch (error) {
      outbox.replyError(peer, peer.port, "#bundle", error);
    }
  }

  #message(message: osc.OscMessageOutput, peer: Peer, key?: string): void {
    const { address } = message;
    let values: OscValue[];
    let reply: ReplyTo = null;
    try {
      values = message.args.map((arg, i) => plainValue(arg, i));
      reply = splitOptions(values, new Set()).options.reply;
    } catch (error) {
      this.#o.outbox.logFault(address, error);
      return this.#o.outbox.answer(peer, { address, reply: reply ?? true }, { error });
    }
    if (!this.#charge(peer, address, 1)) return;
    if (address === "/connect") return void connect(values, peer, this.#o.connect);
    const grant = this.#o.grantOf(peer);
    if (!grant) return this.#o.outbox.refuseUnpaired(peer, address);
    switch (address) {
      case "/subscribe":
        return this.#o.leases.subscribe(values, peer, grant);
      case "/unsubscribe":
      case "/ping":
        return this.#o.leases.renew(address, values, peer);
    }
    this.#table({ address, reply, values, peer, grant, key });
  }

  /** A message to the address table: matched, charged for each call, dispatched. */
  #table(
    message: {
      address: string;
      reply: ReplyTo;
      values: OscValue[];
      peer: Peer;
      grant: Grant;
      key: string | undefined;
    },
  ): void {
    const { address, peer } = message;
    let matches: Match[];
    try {
      matches = matchAddress(address, this.#o.patternValues);
    } catch (error) {
      this.#o.outbox.logFault(address, error);
      return this.#o.outbox.answer(peer, { address, reply: message.reply }, { error });
    }
    // A pattern costs what its calls would cost sent one by one.
    if (!this.#charge(peer, address, matches.length - 1)) return;
    const { values, grant, key } = message;
    this.#o.dispatch.run({ address, matches, values, peer, grant, ...(key ? { key } : {}) });
  }

  /**
   * Takes `count` units of a remote sender's rate budget (the datagram's own
   * unit pays for its first message); refuses and answers when over it.
   * @returns whether the message may run
   */
  #charge(peer: Peer, address: string, count: number): boolean {
    if (peer.isLocal || count <= 0) return true;
    const due = peer.isPrepaid ? count - 1 : count;
    peer.isPrepaid = false;
    if (due <= 0) return true;
    try {
      this.#o.rateLimit.take(peer.address, due);
      return true;
    } catch (error) {
      this.#o.outbox.refuse(peer, address, error);
      return false;
    }
  }
}

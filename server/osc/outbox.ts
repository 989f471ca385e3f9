/**
 * What the OSC port sends: replies and refusals to a sender, and feedback to
 * a subscriber, each within the byte budget of a remote address
 * (`send_budget.ts`); a sender that may not send hears at most a small,
 * rate-limited refusal, and the log says once a minute why it is ignored.
 * @module
 */
import { RateLimiter, type RateMeter } from "../auth/rate_limit.ts";
import { CueportError, unexpectedOf } from "../core/mod.ts";
import type { DatagramSocket } from "../net/mod.ts";
import { encodeRefusal, encodeReply, replyLeastBytes } from "./replies.ts";
import { SendBudget } from "./send_budget.ts";

/** Where a datagram came from, and through which socket it is answered. */
export interface Peer {
  /** As the socket gave it (what replies are sent to). */
  hostname: string;
  port: number;
  /** In plain form (what the sender is known and limited by). */
  address: string;
  isLocal: boolean;
  socket: DatagramSocket;
  /** The size of the datagram: a refusal is never bigger. */
  size: number;
  /** The datagram's one unit of the rate budget, taken when it came, not yet used by a call. */
  isPrepaid: boolean;
}

/** Where a reply or feedback goes: an address and port, and the socket it leaves from. */
export type Destination = Pick<Peer, "hostname" | "port" | "address" | "isLocal" | "socket">;

/** Whether a reply is sent: null none, true to the sender's port, or the port it named. */
export type ReplyTo = number | true | null;

/** Options of the outbox. */
export interface OutboxOptions {
  /** Bytes a second the port may send one remote address. */
  bytesPerSecond: number;
  /** Whether the sender may send (paired, allowed or exempt): only such a sender hears in full. */
  isAllowed: (peer: Peer) => boolean;
  /** Where what it does is told (a sender ignored). */
  log?: ((message: string) => void) | undefined;
  /** Where faults are logged, with their stack (`unexpectedOf`). */
  logFault?: ((message: string) => void) | undefined;
  /** The clock of the budget, ms (tests); default `performance.now`. */
  now?: (() => number) | undefined;
}

/** The sending side of the OSC port: one per server, shared by replies and feedback. */
export class Outbox {
  #o: OutboxOptions;
  /** What the port may send each remote address (`send_budget.ts`). */
  #budget: SendBudget;
  /** Refusals to senders that may not send: at most one a second per address. */
  #refusals = new RateLimiter({ ratePerSecond: 1, burst: 2, exemptsLocal: false })
    .meter("refusals", 1);
  /**
   * Log lines about senders that are not paired: one a minute per address (a
   * desk sends many messages a second), ten a minute in all (spoofed source
   * addresses cannot flood the log).
   */
  #unpairedLines = new RateLimiter({ ratePerSecond: 1 / 60, burst: 1, exemptsLocal: false })
    .meter("lines", 1 / 60);
  #unpairedLinesAll: RateMeter = new RateLimiter({ ratePerSecond: 10 / 60, burst: 10 }).meter(
    "lines",
    10 / 60,
  );

  /** Builds the outbox with a burst of two seconds' worth of bytes per address. */
  constructor(options: OutboxOptions) {
    this.#o = options;
    this.#budget = new SendBudget({
      bytesPerSecond: options.bytesPerSecond,
      burst: options.bytesPerSecond * 2,
      ...(options.now ? { now: options.now } : {}),
    });
  }

  /**
   * Bytes not sent because their address was over its budget, since start (a
   * reply withheld before it was encoded counts its least size).
   */
  get withheld(): number {
    return this.#budget.withheld;
  }

  /** The bytes a remote address may be sent now. */
  available(address: string): number {
    return this.#budget.available(address);
  }

  /** Sends a reply or refusal to `port` of the peer, within a remote address's byte budget. */
  send(peer: Destination, port: number, bytes: Uint8Array<ArrayBuffer>): void {
    if (!peer.isLocal && !this.#budget.take(peer.address, bytes.length)) return;
    peer.socket.send(bytes, peer.hostname, port);
  }

  /**
   * Sends feedback to a destination within its budget.
   * @returns false when its address was over budget (nothing was sent)
   */
  feed(to: Destination, bytes: Uint8Array<ArrayBuffer>): boolean {
    if (!to.isLocal && !this.#budget.take(to.address, bytes.length)) return false;
    to.socket.send(bytes, to.hostname, to.port);
    return true;
  }

  /** Sends the reply `/reply<address>` with the outcome when one was asked for. */
  answer(
    peer: Peer,
    call: { address: string; reply: ReplyTo },
    outcome: { data: unknown } | { error: unknown },
  ): void {
    if (call.reply === null) return;
    const port = call.reply === true ? peer.port : call.reply;
    this.reply(peer, port, call.address, outcome);
  }

  /**
   * Sends `/reply<address>`, its budget checked first against the reply's
   * least size: an address over budget is not paid the encoding. Whether it
   * is sent is decided as `send()` decides (its exact size within the budget).
   */
  reply(
    peer: Destination,
    port: number,
    address: string,
    outcome: { data: unknown } | { error: unknown },
  ): void {
    if (!peer.isLocal) {
      const least = replyLeastBytes(address, outcome);
      if (this.#budget.available(peer.address) < least) {
        this.#budget.take(peer.address, least); // refused: counted as withheld
        return;
      }
    }
    this.send(peer, port, encodeReply(address, outcome));
  }

  /** Logs `error` when it is a fault (no `CueportError`): the one path of every OSC error answer. */
  logFault(address: string, error: unknown): void {
    const fault = unexpectedOf(error);
    if (fault) this.#o.logFault?.(`OSC ${address || "datagram"}: ${fault}`);
  }

  /** Sends the error reply to `address` within the budget (as `reply`), the fault logged. */
  replyError(peer: Destination, port: number, address: string, error: unknown): void {
    this.logFault(address, error);
    this.reply(peer, port, address, { error });
  }

  /**
   * Refuses a sender that is not paired. Its refusal is often not sent (never
   * bigger than the datagram, rate-limited), so the log says why it is ignored.
   */
  refuseUnpaired(peer: Peer, address: string): void {
    try {
      this.#unpairedLines.take(peer.address);
      this.#unpairedLinesAll.take("all");
      this.#o.log?.(
        `OSC sender ${peer.address} is not paired, so its messages are ignored: pair it with ` +
          '/connect <otp> <deviceName> and a code from "cueport pair", or let its address in ' +
          "with --osc-allow (logged once a minute per sender)",
      );
    } catch {
      // Told about lately.
    }
    this.refuse(peer, address, notPaired());
  }

  /**
   * Refuses a sender, at its port or the one it named (`reply=<port>`, `/connect`'s): to one that
   * may not send, at most a small reply, rate-limited.
   */
  refuse(peer: Peer, address: string, error: unknown, port = peer.port): void {
    this.logFault(address, error);
    if (this.#o.isAllowed(peer)) {
      return this.reply(peer, port, address || "/error", { error });
    }
    try {
      this.#refusals.take(peer.address);
    } catch {
      return;
    }
    const bytes = encodeRefusal(address || "/error", error, peer.size);
    if (bytes) this.send(peer, port, bytes);
  }
}

function notPaired(): CueportError {
  return new CueportError(
    "AUTHENTICATION_FAILED",
    "This sender is not paired: send /connect <otp> <deviceName> with a code from `cueport pair`",
  );
}

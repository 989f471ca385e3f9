/**
 * The OSC transport (UDP 17735, docs/osc.md): each datagram is metered
 * (remote senders), decoded (npm `osc-min`), matched against the address
 * table generated from the catalog, authorized by the one policy, run
 * through the core, and answered with `/reply<address>` at the sender's
 * address and port (or the port it names with `reply=<port>`).
 * Subscribers get state changes as typed OSC messages.
 * @module
 */
import * as osc from "osc-min";
import { type Caller, Policy, type Prepared } from "../core/mod.ts";
import { type Grant, isLocalAddress } from "../auth/mod.ts";
import { RateLimiter, type RateMeter } from "../auth/rate_limit.ts";
import type { AuthService } from "../auth/service.ts";
import type { Scope } from "../auth/tokens.ts";
import {
  type AnyOperation,
  type Core,
  CueportError,
  operationNamed,
  unexpectedOf,
  type UpdateBatch,
  type WireField,
  withWireField,
} from "../core/mod.ts";
import { type DatagramSocket, normalizeAddress, type UdpPort } from "../net/mod.ts";
import { BundleScheduler, timetagMs } from "./bundles.ts";
import { decodePacket } from "./decode.ts";
import {
  ACTION_OPTIONS,
  actionInput,
  type OscValue,
  plainValue,
  queryInput,
  queryOptions,
  splitOptions,
} from "./coerce.ts";
import { batchFeedback, currentFeedback, type Feedback } from "./feedback.ts";
import { type Match, matchAddress, type PatternValues } from "./match.ts";
import { encodeError, encodeMessage, encodeRefusal, encodeReply } from "./replies.ts";
import { Senders } from "./senders.ts";
import { ValueCoalescer, valueKey } from "./coalesce.ts";
import { SendBudget } from "./send_budget.ts";
import {
  type FeedbackFilter,
  parseFilter,
  passes,
  type Subscriber,
  Subscriptions,
} from "./subscriptions.ts";
import type { OscAddress } from "./addresses.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";

export { ADDRESSES, type OscAddress } from "./addresses.ts";
export { FEEDBACK_ADDRESSES } from "./feedback.ts";
export { OSCQUERY_OPERATION, OscQueryServer } from "./query_server.ts";

/** Bundles nest at most this deep. */
const MAX_BUNDLE_DEPTH = 8;
/**
 * Calls of one sender address waiting for the player, beyond coalesced
 * values: past it a call is refused (RATE_LIMITED), so no sender queues more
 * than the player takes.
 */
export const MAX_WAITING_CALLS = 256;
/** How often subscribers behind their address's byte budget are looked at. */
const RESYNC_MS = 250;
/** What `/connect` runs: the catalog's pairing, as every transport runs it. */
const PAIR = operationNamed("pair");
/** What `/subscribe` runs: the catalog's lease of OSC feedback. */
const SUBSCRIBE = operationNamed("oscSubscribe");
/** The addresses outside the table that run an operation of the catalog. */
export const OWN_ADDRESSES: Readonly<Record<string, AnyOperation>> = {
  "/connect": PAIR,
  "/subscribe": SUBSCRIBE,
};

/** Options of the OSC server. */
export interface OscServerOptions {
  auth: AuthService;
  /** The service's rate limit, as OSC takes from it (remote senders only). */
  rateLimit: RateMeter;
  /** Addresses and subnets let in without pairing (setting oscAllow). */
  allow: readonly string[];
  version: string;
  /** How long a subscription lasts unless renewed, ms (default 30 s). */
  subscriptionTtlMs?: number;
  /** Bytes a second the port may send one remote address (setting oscSendBytesPerSecond). */
  sendBytesPerSecond?: number;
  /** Where what it does is told (a sender paired, one ignored); the service logs it at info. */
  log?: (message: string) => void;
  /**
   * Where the faults it answers SERVER_ERROR for are logged, with their
   * stack (`unexpectedOf`); the service logs them at error, as every wire.
   */
  logFault?: (message: string) => void;
}

/** Where a datagram came from, and through which socket it is answered. */
interface Peer {
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

/** What the calls of one row of the address table in a message share (`OscServer.#row`). */
interface Row {
  entry: OscAddress;
  reply: number | true | null;
  /** Its arguments and options; null when they were refused (`failure` says why). */
  split: ReturnType<typeof splitOptions> | null;
  /** Why its calls fail: its options were refused. */
  failure: { error: unknown } | null;
  /** Who runs them: the sender, with the grant it was let in with. */
  caller: Caller;
}

/** The OSC server: one per service, serving every bound UDP socket. */
export class OscServer {
  #core: Core;
  #o: OscServerOptions;
  #policy: Policy;
  #senders: Senders;
  #subscriptions: Subscriptions;
  #scheduler: BundleScheduler;
  /** Refusals to senders that may not send: at most one a second per address. */
  #refusals = new RateLimiter({ ratePerSecond: 1, burst: 2, exemptsLocal: false });
  #refusalMeter: RateMeter;
  /**
   * Log lines about senders that are not paired: one a minute per address (a
   * desk sends many messages a second), ten a minute in all (spoofed source
   * addresses cannot flood the log).
   */
  #unpairedLines = new RateLimiter({ ratePerSecond: 1 / 60, burst: 1, exemptsLocal: false })
    .meter("lines", 1 / 60);
  #unpairedLinesAll = new RateLimiter({ ratePerSecond: 10 / 60, burst: 10 }).meter(
    "lines",
    10 / 60,
  );
  #unsubscribe: () => void;
  #patternValues: PatternValues;
  #values = new ValueCoalescer();
  /** What the port may send each remote address (`send_budget.ts`). */
  #sendBudget: SendBudget;
  /** Subscribers that missed feedback for their address's budget: resynced once it has room. */
  #behind = new Set<Subscriber>();
  #resyncTimer: ReturnType<typeof setInterval> | null = null;
  /** Calls waiting for the player, by sender address (`MAX_WAITING_CALLS`). */
  #waiting = new Map<string, number>();
  /** Datagrams read, and calls that ended in an error (the `/ping` reply reports both). */
  #stats = { datagrams: 0, failed: 0 };
  #ports: UdpPort[] = [];

  /**
   * Subscribes to the core's event bus.
   * @throws {Error} for a bad oscAllow entry
   */
  constructor(core: Core, options: OscServerOptions) {
    this.#core = core;
    this.#o = options;
    // The one policy decides the localhost exemption; `Senders` knows paired and allowed addresses.
    this.#policy = new Policy({
      core,
      authenticator: options.auth.authenticator,
      isLocalhostExempt: options.auth.settings.localhostAuthExempt,
    });
    this.#senders = new Senders({
      devices: options.auth.devices,
      authenticator: options.auth.authenticator,
      allow: options.allow,
    });
    this.#subscriptions = new Subscriptions({ ttlMs: options.subscriptionTtlMs ?? 30_000 });
    this.#scheduler = new BundleScheduler(core.model);
    this.#refusalMeter = this.#refusals.meter("refusals", 1);
    this.#sendBudget = new SendBudget({
      bytesPerSecond: options.sendBytesPerSecond ?? SETTING_DEFAULTS.oscSendBytesPerSecond,
      burst: (options.sendBytesPerSecond ?? SETTING_DEFAULTS.oscSendBytesPerSecond) * 2,
    });
    this.#unsubscribe = core.bus.subscribe((batch) => this.#fanOut(batch));
    const idsOf = (key: "clips" | "songs") => () => {
      const id = core.model.activeProjectId;
      return (id ? core.model.project(id)?.[key] ?? [] : []).map((item) => item.id);
    };
    this.#patternValues = { clipIds: idsOf("clips"), songIds: idsOf("songs") };
  }

  /** Subscribers whose lease runs. */
  get subscriberCount(): number {
    return this.#subscriptions.size;
  }

  /** Bundles waiting for their time. */
  get pendingBundles(): number {
    return this.#scheduler.size;
  }

  /**
   * The grant a sender at this address acts under, or null when it must pair
   * first: the policy's localhost exemption, else a paired OSC device or
   * oscAllow (`Senders`). OSCQuery asks the same.
   */
  grantOf(address: string): Grant | null {
    return this.#grantOf({ address, isLocal: isLocalAddress(address) });
  }

  #grantOf(peer: { address: string; isLocal: boolean }): Grant | null {
    return this.#policy.exempted(peer) ?? this.#senders.grantOf(peer.address);
  }

  /** Serves the datagrams of a port until it closes. */
  serve(port: UdpPort): Promise<void> {
    this.#ports.push(port);
    return port.serve((data, hostname, from, socket) => {
      this.#stats.datagrams++;
      try {
        this.#receive(data, hostname, from, socket);
      } catch (error) {
        this.#o.logFault?.(`OSC datagram failed: ${unexpectedOf(error) ?? String(error)}`);
      }
    });
  }

  /** A device was revoked: its address may send no more, its subscriptions end. */
  closeDevice(deviceId: string): void {
    this.#senders.forget();
    this.#subscriptions.removeWhere((s) => s.deviceId === deviceId);
  }

  /** Bytes not sent because their address was over its budget, since start. */
  get withheldBytes(): number {
    return this.#sendBudget.withheld;
  }

  /** Stops the feedback and drops waiting bundles (the sockets are closed by their owner). */
  close(): void {
    if (this.#resyncTimer !== null) clearInterval(this.#resyncTimer);
    this.#resyncTimer = null;
    this.#unsubscribe();
    this.#scheduler.close();
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
      this.#refuse(peer, "", error);
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
      if (this.#grantOf(peer)) this.#send(peer, peer.port, encodeError(refusal));
      return;
    }
    this.#packet(packet, peer, 0);
  }

  #packet(packet: osc.OscPacketOutput, peer: Peer, depth: number): void {
    if (packet.oscType === "message") {
      this.#message(packet, peer);
      return;
    }
    if (depth >= MAX_BUNDLE_DEPTH) {
      this.#send(
        peer,
        peer.port,
        encodeReply("#bundle", {
          error: new CueportError(
            "INVALID_MESSAGE",
            `Invalid bundle: bundles nest at most ${MAX_BUNDLE_DEPTH} deep`,
          ),
        }),
      );
      return;
    }
    const runAll = () => {
      for (const element of packet.elements) this.#packet(element, peer, depth + 1);
    };
    const at = timetagMs(packet.timetag);
    const delay = at === null ? 0 : at - Date.now();
    if (delay <= 0) return runAll();
    if (!this.#grantOf(peer)) {
      return this.#refuseUnpaired(peer, "#bundle");
    }
    try {
      this.#scheduler.schedule(delay, runAll);
    } catch (error) {
      this.#send(peer, peer.port, this.#errorReply("#bundle", error));
    }
  }

  #message(message: osc.OscMessageOutput, peer: Peer): void {
    let values: OscValue[];
    let reply: number | true | null = null;
    try {
      values = message.args.map((arg, i) => plainValue(arg, i));
      reply = splitOptions(values, new Set()).options.reply;
    } catch (error) {
      this.#logFault(message.address, error);
      return this.#answer(peer, message.address, reply ?? true, { error });
    }
    if (!this.#charge(peer, message.address, 1)) return;
    switch (message.address) {
      case "/connect":
        return void this.#connect(values, peer);
      case "/subscribe":
        return this.#subscribe(values, peer);
      case "/unsubscribe":
      case "/ping":
        return this.#renew(message.address, values, peer);
    }
    const grant = this.#grantOf(peer);
    if (!grant) return this.#refuseUnpaired(peer, message.address);
    let matches: Match[];
    try {
      matches = matchAddress(message.address, this.#patternValues);
    } catch (error) {
      this.#logFault(message.address, error);
      return this.#answer(peer, message.address, reply, { error });
    }
    // A pattern costs what its calls would cost sent one by one.
    if (!this.#charge(peer, message.address, matches.length - 1)) return;
    // The calls of one row share its options (`/control/*` makes 26).
    let row: Row | null = null;
    for (const match of matches) {
      if (row?.entry !== match.entry) {
        row = this.#row(match.entry, values, peer, grant);
      }
      this.#call(match, row, message.address, peer);
    }
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
      this.#refuse(peer, address, error);
      return false;
    }
  }

  /**
   * Runs an operation. A value it sets goes through the coalescer (joining a
   * call of the same thing that runs, or starting one); every call that goes
   * to the player counts against its sender's waiting calls, and a new one
   * past `MAX_WAITING_CALLS` is refused.
   */
  #run(operation: AnyOperation, prepared: Prepared, peer: Peer, isAwaited: boolean): unknown {
    const call = () => this.#counted(peer.address, prepared.run());
    const key = operation.name === "action" ? valueKey(prepared.input) : null;
    if (key !== null && this.#values.has(key)) return this.#values.run(key, call, isAwaited);
    if ((this.#waiting.get(peer.address) ?? 0) >= MAX_WAITING_CALLS) {
      throw new CueportError(
        "RATE_LIMITED",
        `Too many calls waiting for the player: at most ${MAX_WAITING_CALLS} per sender`,
        { retryAfterSeconds: 1 },
      );
    }
    return key !== null ? this.#values.run(key, call, isAwaited) : call();
  }

  /** A call's `result`, counted among the address's waiting calls while it is awaited. */
  #counted(address: string, result: unknown): unknown {
    if (!(result instanceof Promise)) return result;
    this.#waiting.set(address, (this.#waiting.get(address) ?? 0) + 1);
    const done = () => {
      const left = (this.#waiting.get(address) ?? 1) - 1;
      if (left > 0) this.#waiting.set(address, left);
      else this.#waiting.delete(address);
    };
    result.then(done, done);
    return result;
  }

  /** What the calls of one row in a message share: its options, and who runs them. */
  #row(entry: OscAddress, values: OscValue[], peer: Peer, grant: Grant): Row {
    const isQuery = entry.kind === "query";
    const caller: Caller = { address: peer.address, isLocal: peer.isLocal, grant };
    const row: Row = { entry, reply: isQuery ? true : null, split: null, failure: null, caller };
    try {
      row.split = splitOptions(values, isQuery ? queryOptions(entry) : ACTION_OPTIONS);
      if (row.split.options.reply !== null) row.reply = row.split.options.reply;
    } catch (error) {
      row.failure = { error };
    }
    return row;
  }

  #call(match: Match, row: Row, address: string, peer: Peer): void {
    const { entry } = match;
    let result: unknown;
    try {
      if (row.split === null) throw row.failure!.error; // its options were refused
      const { values, named } = row.split;
      const input = entry.kind === "query"
        ? queryInput(entry, values, named)
        : actionInput(entry, match.fromPath, values, named);
      // The one path: authorized (the plan, the scope) and checked, run when the coalescer says.
      const prepared = this.#policy.prepare(entry.operation, row.caller, input, { where: address });
      // With the sender's grant given, `prepare` never waits for a token.
      result = this.#run(entry.operation, prepared as Prepared, peer, row.reply !== null);
    } catch (error) {
      this.#failed(address, error);
      return this.#answer(peer, address, row.reply, { error });
    }
    if (result instanceof Promise) {
      const reply = row.reply;
      if (reply === null) {
        result.catch((error) => this.#failed(address, error));
        return;
      }
      result.then(
        (data) => this.#answer(peer, address, reply, { data }),
        (error) => {
          this.#failed(address, error);
          this.#answer(peer, address, reply, { error });
        },
      );
    } else this.#answer(peer, address, row.reply, { data: result });
  }

  /** Counts a call that failed (`/ping` says how many), and logs it when it is a fault. */
  #failed(address: string, error: unknown): void {
    this.#stats.failed++;
    this.#logFault(address, error);
  }

  /** Logs `error` when it is a fault (no `CueportError`): the one path of every OSC error answer. */
  #logFault(address: string, error: unknown): void {
    const fault = unexpectedOf(error);
    if (fault) this.#o.logFault?.(`OSC ${address || "datagram"}: ${fault}`);
  }

  /** The error reply to `address`, the fault logged. */
  #errorReply(address: string, error: unknown): Uint8Array<ArrayBuffer> {
    this.#logFault(address, error);
    return encodeReply(address, { error });
  }

  /** Sends the reply when one was asked for. */
  #answer(
    peer: Peer,
    address: string,
    reply: number | true | null,
    outcome: { data: unknown } | { error: unknown },
  ): void {
    if (reply === null) return;
    this.#send(peer, reply === true ? peer.port : reply, encodeReply(address, outcome));
  }

  #notPaired(): CueportError {
    return new CueportError(
      "AUTHENTICATION_FAILED",
      "This sender is not paired: send /connect <otp> <deviceName> with a code from `cueport pair`",
    );
  }

  /**
   * Refuses a sender that is not paired. Its refusal is often not sent (never
   * bigger than the datagram, rate-limited), so the log says why it is ignored.
   */
  #refuseUnpaired(peer: Peer, address: string): void {
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
    this.#refuse(peer, address, this.#notPaired());
  }

  /** Refuses a sender: to one that may not send, at most a small reply, rate-limited. */
  #refuse(peer: Peer, address: string, error: unknown): void {
    this.#logFault(address, error);
    if (this.#grantOf(peer)) {
      this.#send(peer, peer.port, encodeReply(address || "/error", { error }));
      return;
    }
    try {
      this.#refusalMeter.take(peer.address);
    } catch {
      return;
    }
    const bytes = encodeRefusal(address || "/error", error, peer.size);
    if (bytes) this.#send(peer, peer.port, bytes);
  }

  async #connect(values: OscValue[], peer: Peer): Promise<void> {
    const { values: args, options } = splitOptions(values, new Set());
    const [otpValue, name, scopeText] = args;
    const otp = typeof otpValue === "number" ? String(otpValue).padStart(6, "0") : String(otpValue);
    const listed = typeof scopeText === "string"
      ? scopeText.split(",").map((s) => s.trim()).filter(Boolean) as Scope[]
      : [];
    const scopes = listed.length > 0 ? listed : ["view", "control"] as Scope[];
    try {
      if (scopes.some((s) => !["view", "control", "edit"].includes(s))) {
        throw new CueportError(
          "INVALID_MESSAGE",
          "Invalid args[2] (scopes): a comma-separated list of view, control, edit",
          { field: "args[2]" },
        );
      }
      const device = await this.#senders.pair(
        otp,
        peer.address,
        typeof name === "string" && name.trim() ? name : `OSC ${peer.address}`,
        scopes,
        // The catalog's `pair` through the one path: the plan, the code's limits, the registry.
        (input) =>
          this.#policy.invoke(PAIR, { address: peer.address, isLocal: peer.isLocal }, input, {
            where: "/connect",
            context: { auth: this.#o.auth, pairing: "osc" },
          }) as Promise<{ deviceId: string; scopes: Scope[] }>,
      );
      const port = typeof options.reply === "number" ? options.reply : peer.port;
      this.#send(peer, port, encodeReply("/connect", { data: { ok: true, ...device } }));
      this.#o.log?.(`OSC sender ${peer.address} paired as ${device.deviceId}`);
    } catch (error) {
      this.#refuse(peer, "/connect", withWireField(error, connectArg));
    }
  }

  #subscribe(values: OscValue[], peer: Peer): void {
    const grant = this.#grantOf(peer);
    if (!grant) return this.#refuseUnpaired(peer, "/subscribe");
    let port = peer.port;
    try {
      const { values: rest, options } = splitOptions(values, new Set());
      if (typeof options.reply === "number") port = options.reply;
      const caller: Caller = { address: peer.address, isLocal: peer.isLocal, grant };
      let leased: { subscriber: Subscriber; filter: FeedbackFilter } | null = null;
      const lease = (filter: readonly unknown[]) => {
        leased = this.#lease(filter, peer, port, grant);
        return this.#leaseView(leased.filter);
      };
      const data = this.#policy.invoke(SUBSCRIBE, caller, { filter: rest }, {
        where: "/subscribe",
        context: { oscFeedback: lease },
      });
      this.#send(peer, port, encodeReply("/subscribe", { data }));
      // Then its current values (`oscSubscribe` runs at once: the sender's grant is given).
      const { subscriber, filter } = leased!;
      this.#sendFeedback(subscriber, currentFeedback(this.#core.model, filter.projectId));
    } catch (error) {
      this.#send(peer, port, this.#errorReply("/subscribe", error));
    }
  }

  /** `oscSubscribe` for this sender: its subscription (the current values are sent after the answer). */
  #lease(filterArgs: readonly unknown[], peer: Peer, port: number, grant: Grant) {
    const filter = parseFilter(filterArgs);
    const subscriber = this.#subscriptions.add({
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
      leaseSeconds: this.#subscriptions.ttlMs / 1000,
      filter: {
        types: filter.types ? [...filter.types] : null,
        projectId: filter.projectId,
        prefixes: filter.prefixes,
      },
    };
  }

  /** `/ping` renews a lease and answers; `/unsubscribe` ends it. */
  #renew(address: string, values: OscValue[], peer: Peer): void {
    if (!this.#grantOf(peer)) return this.#refuseUnpaired(peer, address);
    let port = peer.port;
    try {
      const { options } = splitOptions(values, new Set());
      if (typeof options.reply === "number") port = options.reply;
    } catch (error) {
      return this.#send(peer, port, this.#errorReply(address, error));
    }
    const key = `${peer.hostname}|${port}`;
    const data = address === "/ping"
      ? {
        ok: true,
        version: this.#o.version,
        ready: this.#core.isReady,
        subscribed: this.#subscriptions.renew(key),
        datagrams: this.#stats.datagrams,
        dropped: this.#ports.reduce((sum, p) => sum + p.dropped, 0),
        failed: this.#stats.failed,
      }
      : { ok: true, unsubscribed: this.#subscriptions.remove(key) };
    this.#send(peer, port, encodeReply(address, { data }));
  }

  #fanOut(batch: UpdateBatch): void {
    const subscribers = this.#subscriptions.live();
    if (subscribers.length === 0) return;
    const feedback = batchFeedback(this.#core.model, batch.updates);
    if (feedback === null) {
      for (const s of subscribers) {
        this.#behind.delete(s);
        this.#sendFeedback(s, currentFeedback(this.#core.model, s.filter.projectId));
      }
      return;
    }
    // Each message is encoded once, whatever the number of subscribers.
    const encoded = feedback.map((message) => ({
      message,
      bytes: encodeMessage(message.address, message.args),
    }));
    const active = this.#core.model.activeProjectId;
    for (const s of subscribers) {
      if (this.#behind.has(s)) continue; // its resync brings it up to date
      for (const { message, bytes } of encoded) {
        if (passes(s.filter, message, active)) this.#feed(s, bytes);
      }
    }
  }

  /** Sends a subscriber one feedback message, or marks it behind when its address is over budget. */
  #feed(subscriber: Subscriber, bytes: Uint8Array<ArrayBuffer>): void {
    if (this.#behind.has(subscriber)) return;
    if (subscriber.isLocal || this.#sendBudget.take(subscriber.address, bytes.length)) {
      subscriber.socket.send(bytes, subscriber.hostname, subscriber.port);
      return;
    }
    this.#behind.add(subscriber);
    this.#resyncTimer ??= setInterval(() => this.#resync(), RESYNC_MS);
  }

  /** Sends subscribers that fell behind their current values, once their budget holds them all. */
  #resync(): void {
    const live = new Set(this.#subscriptions.live());
    for (const s of this.#behind) {
      if (!live.has(s)) {
        this.#behind.delete(s);
        continue;
      }
      const active = this.#core.model.activeProjectId;
      const messages = currentFeedback(this.#core.model, s.filter.projectId)
        .filter((m) => passes(s.filter, m, active))
        .map((m) => encodeMessage(m.address, m.args));
      const bytes = messages.reduce((sum, m) => sum + m.length, 0);
      if (this.#sendBudget.available(s.address) < bytes) continue;
      this.#behind.delete(s);
      for (const m of messages) this.#feed(s, m);
    }
    if (this.#behind.size === 0 && this.#resyncTimer !== null) {
      clearInterval(this.#resyncTimer);
      this.#resyncTimer = null;
    }
  }

  #sendFeedback(subscriber: Subscriber, feedback: Feedback[]): void {
    const active = this.#core.model.activeProjectId;
    for (const message of feedback) {
      if (!passes(subscriber.filter, message, active)) continue;
      this.#feed(subscriber, encodeMessage(message.address, message.args));
    }
  }

  /** Sends a reply or refusal, within the byte budget of a remote sender's address. */
  #send(peer: Peer, port: number, bytes: Uint8Array<ArrayBuffer>): void {
    if (!peer.isLocal && !this.#sendBudget.take(peer.address, bytes.length)) return;
    peer.socket.send(bytes, peer.hostname, port);
  }
}

/** `/connect`'s arguments as `pair` names them: a refusal names the argument the desk sent. */
const CONNECT_ARGS: Record<string, string> = {
  otp: "args[0]",
  deviceName: "args[1]",
  scopes: "args[2]",
};

/** A field of `pair` as `/connect` names it: the argument the desk sent (`args[0] (otp)`). */
function connectArg(field: string): WireField | undefined {
  const top = field.split(/[.[]/)[0] ?? "";
  const arg = CONNECT_ARGS[top];
  return arg ? { field: arg, label: `${arg} (${top})` } : undefined;
}

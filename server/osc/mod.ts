/**
 * The OSC transport (UDP 17735, docs/osc.md): each datagram is metered
 * (remote senders), decoded (npm `osc-min`), matched against the address
 * table generated from the catalog, authorized by the one policy, run
 * through the core, and answered with `/reply<address>` at the sender's
 * address and port (or the port it names with `reply=<port>`).
 * Subscribers get state changes as typed OSC messages.
 * @module
 */
import { type Grant, isLocalAddress } from "../auth/mod.ts";
import type { RateMeter } from "../auth/rate_limit.ts";
import type { AuthService } from "../auth/service.ts";
import { type AnyOperation, type Core, Policy } from "../core/mod.ts";
import type { UdpPort } from "../net/mod.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";
import { BundleScheduler } from "./bundles.ts";
import { PAIR } from "./connect.ts";
import { Dispatch } from "./dispatch.ts";
import { FanOut } from "./fan_out.ts";
import { Leases, SUBSCRIBE } from "./leases.ts";
import type { PatternValues } from "./match.ts";
import { Outbox } from "./outbox.ts";
import { Receiver } from "./receiver.ts";
import { Senders } from "./senders.ts";
import { Subscriptions } from "./subscriptions.ts";

export { ADDRESSES, type OscAddress } from "./addresses.ts";
export { MAX_WAITING_CALLS } from "./dispatch.ts";
export { FEEDBACK_ADDRESSES } from "./feedback.ts";
export { OSCQUERY_OPERATION, OscQueryServer } from "./query_server.ts";

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

/**
 * The OSC server: one per service, serving every bound UDP socket. It
 * composes the port's parts: the receiver (`receiver.ts`: meter, decode,
 * route), the dispatch of the address table to the core (`dispatch.ts`), the
 * leases of feedback (`leases.ts`), the fan-out of updates to subscribers
 * (`fan_out.ts`) and the outbox that sends within each address's budget
 * (`outbox.ts`).
 */
export class OscServer {
  #policy: Policy;
  #senders: Senders;
  #subscriptions: Subscriptions;
  #scheduler: BundleScheduler;
  #outbox: Outbox;
  #fanOut: FanOut;
  #receiver: Receiver;
  #unsubscribe: () => void;

  /**
   * Subscribes to the core's event bus.
   * @throws {Error} for a bad oscAllow entry
   */
  constructor(core: Core, options: OscServerOptions) {
    // The one policy decides the localhost exemption; `Senders` knows paired and allowed addresses.
    const policy = this.#policy = new Policy({
      core,
      authenticator: options.auth.authenticator,
      isLocalhostExempt: options.auth.settings.localhostAuthExempt,
    });
    const senders = this.#senders = new Senders({
      devices: options.auth.devices,
      authenticator: options.auth.authenticator,
      allow: options.allow,
    });
    const subscriptions = this.#subscriptions = new Subscriptions({
      ttlMs: options.subscriptionTtlMs ?? 30_000,
    });
    this.#scheduler = new BundleScheduler(core.model);
    const outbox = this.#outbox = new Outbox({
      bytesPerSecond: options.sendBytesPerSecond ?? SETTING_DEFAULTS.oscSendBytesPerSecond,
      isAllowed: (peer) => this.#grantOf(peer) !== null,
      log: options.log,
      logFault: options.logFault,
    });
    const fanOut = this.#fanOut = new FanOut({ model: core.model, subscriptions, outbox });
    const dispatch = new Dispatch({ policy, outbox });
    const leases = new Leases({
      core,
      policy,
      subscriptions,
      fanOut,
      outbox,
      version: options.version,
      stats: () => ({
        datagrams: this.#receiver.datagrams,
        dropped: this.#receiver.dropped,
        failed: dispatch.failed,
      }),
    });
    this.#receiver = new Receiver({
      rateLimit: options.rateLimit,
      grantOf: (peer) => this.#grantOf(peer),
      outbox,
      dispatch,
      leases,
      connect: { auth: options.auth, policy, senders, outbox, log: options.log },
      scheduler: this.#scheduler,
      inGroup: () => core.actions.scheduler !== null,
      patternValues: patternValuesOf(core),
      logFault: options.logFault,
    });
    this.#unsubscribe = core.bus.subscribe((batch) => fanOut.batch(batch));
  }

  /** Subscribers whose lease runs. */
  get subscriberCount(): number {
    return this.#subscriptions.size;
  }

  /** Bundles waiting for their time. */
  get pendingBundles(): number {
    return this.#scheduler.size;
  }

  /** Bytes not sent because their address was over its budget, since start. */
  get withheldBytes(): number {
    return this.#outbox.withheld;
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
    return this.#receiver.serve(port);
  }

  /** A device was revoked: its address may send no more, its subscriptions end. */
  closeDevice(deviceId: string): void {
    this.#senders.forget();
    this.#subscriptions.removeWhere((s) => s.deviceId === deviceId);
  }

  /** Stops the feedback and drops waiting bundles (the sockets are closed by their owner). */
  close(): void {
    this.#fanOut.close();
    this.#unsubscribe();
    this.#scheduler.close();
  }
}

/** The ids a pattern expands over: the active Project's clips and songs. */
function patternValuesOf(core: Core): PatternValues {
  const idsOf = (key: "clips" | "songs") => () => {
    const id = core.model.activeProjectId;
    return (id ? core.model.project(id)?.[key] ?? [] : []).map((item) => item.id);
  };
  return { clipIds: idsOf("clips"), songIds: idsOf("songs") };
}

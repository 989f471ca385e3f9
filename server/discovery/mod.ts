/**
 * Discovery: the service advertises itself by mDNS/DNS-SD (`_app._tcp` on the
 * WebSocket port, `_http._tcp` on the HTTP port, `_oscjson._tcp` when the
 * OSCQuery server runs, `_apple-midi._udp` on the network MIDI session's
 * control port when it runs). Not a transport: it only advertises, and runs no
 * operation. `server/service.ts` starts it once the ports are bound.
 * @module
 */
import type { Logger } from "../log.ts";
import { type InterfaceLister, systemInterfaces } from "./interfaces.ts";
import { type GroupAdvert, instancesOf, type ServiceSet, txtOf } from "./records.ts";
import { Responder, type ResponderTimings } from "./responder.ts";

export { type AdvertInterface, type InterfaceLister, systemInterfaces } from "./interfaces.ts";
export { type ResponderTimings, RFC_TIMINGS } from "./responder.ts";
export type { GroupAdvert } from "./records.ts";

/** What is advertised. */
export interface DiscoveryOptions {
  /** The first word of every instance name (`Cueport`). */
  serviceName: string;
  /** The host label; default: this machine's hostname up to its first dot. */
  hostname?: string;
  /**
   * The bound ports; `oscQuery` is advertised as `_oscjson._tcp` and `appleMidi` (the network
   * MIDI session's control port) as `_apple-midi._udp` when present.
   */
  ports: ServiceSet["ports"];
  /** The `host` setting: which interfaces to advertise on (`systemInterfaces`). */
  hosts: string[];
  apiVersion: string;
  appVersion: string;
  /** The WebSocket path (`/v1`). */
  wsPath: string;
  log: Logger;
  /**
   * In a rig group, the group, this rig and whether it leads now (`GroupAdvert`): added to the
   * TXT record, read again every `groupPollMs` (1 s) and announced when it changed.
   */
  group?: (() => GroupAdvert | null) | undefined;
  groupPollMs?: number;
  /** Seams for tests. */
  interfaces?: InterfaceLister;
  timings?: Partial<ResponderTimings>;
}

/** A running advertisement. */
export interface Discovery {
  /** The instance names in use, by service type (after any conflict rename). */
  readonly names: Record<string, string>;
  /** Whether every name has been won and announced. */
  readonly announced: boolean;
  /** Reads the interface list now (it is also read every 5 s). */
  refreshInterfaces(): Promise<void>;
  /** Sends goodbyes and closes the sockets. */
  stop(): Promise<void>;
}

/** This machine's host label: the hostname up to its first dot, as a `.local` name takes it. */
export function hostLabel(): string {
  const name = Deno.hostname().split(".")[0]!.trim();
  return name.length > 0 ? name.slice(0, 63) : "cueport";
}

/** Starts advertising; never throws for the network (problems are logged). */
export async function startDiscovery(options: DiscoveryOptions): Promise<Discovery> {
  const hostname = options.hostname ?? hostLabel();
  const txt = () =>
    txtOf({
      apiVersion: options.apiVersion,
      appVersion: options.appVersion,
      hostname,
      platform: Deno.build.os,
      ports: options.ports,
      wsPath: options.wsPath,
      group: options.group?.(),
    });
  const set: ServiceSet = { hostname, ports: options.ports, txt: txt() };
  const responder = await Responder.start({
    set,
    instances: instancesOf(options.serviceName, set),
    interfaces: options.interfaces ?? systemInterfaces(options.hosts),
    log: options.log,
    ...(options.timings ? { timings: options.timings } : {}),
  });
  const poll = options.group &&
    setInterval(() => responder.setTxt(txt()), options.groupPollMs ?? 1000);
  if (responder.interfaces.length === 0) {
    options.log("warn", "mDNS: no network interface to advertise on (yet); checking every 5 s");
  }
  return {
    get names() {
      return responder.names;
    },
    get announced() {
      return responder.announced;
    },
    refreshInterfaces: () => responder.refreshInterfaces(),
    stop: () => {
      clearInterval(poll || undefined);
      return responder.stop();
    },
  };
}

/**
 * One multicast DNS socket per interface, from `multicast-dns`: bound to
 * 0.0.0.0:5353 with SO_REUSEADDR (so it shares the port with Avahi, Bonjour or
 * `mdns-scan`), joined to 224.0.0.251 on its interface, sending there with
 * TTL 255. Every socket on port 5353 sees the group's packets of every
 * interface, while a unicast datagram to port 5353 reaches only one of them:
 * a link passes every packet on, saying whether its source lies in the link's
 * subnet, and the responder routes it to the right link. A packet is decoded
 * only when the ingress budget admits it (`budget.ts`).
 * @module
 */
import dgram from "node:dgram";
import multicastDns from "multicast-dns";
import { type AdvertInterface, inSubnet } from "./interfaces.ts";
import type { MdnsRecord } from "./records.ts";
import type { IngressBudget } from "./budget.ts";

/** The mDNS port and group. */
export const MDNS_PORT = 5353;
/** The IPv4 mDNS group. */
export const MDNS_GROUP = "224.0.0.251";

/** A decoded DNS message (`dns-packet`'s shape). */
export interface MdnsPacket {
  id: number;
  type: "query" | "response";
  flags?: number;
  questions: Array<{ name: string; type: string; class: string }>;
  answers: MdnsRecord[];
  authorities: MdnsRecord[];
  additionals: MdnsRecord[];
}

/** Where a packet came from. */
export interface Sender {
  address: string;
  port: number;
}

/** The part of a `multicast-dns` instance used here. */
interface MulticastDns {
  on(event: "packet", fn: (p: MdnsPacket, rinfo: Sender) => void): void;
  on(event: "ready", fn: () => void): void;
  on(event: "error" | "warning", fn: (e: Error) => void): void;
  send(p: unknown, rinfo?: Sender | null, cb?: (e?: Error | null) => void): void;
  destroy(cb?: () => void): void;
}

/** One interface's socket. */
export class Link {
  /** Called with each packet received; `isLocal` when its source is in this link's subnet. */
  onpacket: (p: MdnsPacket, from: Sender, link: Link, isLocal: boolean) => void = () => {};
  #mdns: MulticastDns;
  #closed = false;

  private constructor(readonly iface: AdvertInterface, mdns: MulticastDns) {
    this.#mdns = mdns;
    mdns.on("packet", (p, rinfo) => {
      if (!this.#closed) this.onpacket(p, rinfo, this, inSubnet(rinfo.address, iface));
    });
    mdns.on("warning", () => {}); // a malformed packet from the network is not our concern
  }

  /**
   * Opens the socket; rejects when port 5353 cannot be shared (held by a
   * responder without SO_REUSEADDR) or the interface refuses the group.
   */
  static open(iface: AdvertInterface, budget: IngressBudget): Promise<Link> {
    return new Promise((resolve, reject) => {
      let mdns: MulticastDns;
      try {
        mdns = multicastDns({
          socket: gatedSocket(budget),
          interface: iface.address,
          bind: "0.0.0.0",
          port: MDNS_PORT,
          reuseAddr: true,
          loopback: true,
          ttl: 255,
        }) as MulticastDns;
      } catch (error) {
        reject(error);
        return;
      }
      let settled = false;
      mdns.on("error", (error) => {
        if (settled) return;
        settled = true;
        mdns.destroy();
        reject(error);
      });
      mdns.on("ready", () => {
        if (settled) return;
        settled = true;
        resolve(new Link(iface, mdns));
      });
    });
  }

  /** Sends a message to the group on this interface, or to `to` (a unicast answer). */
  send(message: Omit<MdnsPacket, "id"> & { id?: number }, to?: Sender): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#mdns.send(
        { id: 0, ...message },
        to ? { ...to } : null,
        () => resolve(), // a send that fails (interface gone) is not retried: the next one follows
      );
    });
  }

  /** Closes the socket (leaves the group). */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    return new Promise((resolve) => this.#mdns.destroy(() => resolve()));
  }
}

/** A UDP socket whose datagrams reach `multicast-dns` (and its decoder) only when admitted. */
function gatedSocket(budget: IngressBudget): dgram.Socket {
  const socket = dgram.createSocket({ type: "udp4", reuseAddr: true });
  const emit = socket.emit.bind(socket);
  socket.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === "message" && !budget.admit((args[1] as Sender).address)) return false;
    return emit(event, ...args);
  }) as typeof socket.emit;
  return socket;
}

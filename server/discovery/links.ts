/**
 * The mDNS responder's sockets (`Responder` keeps its names): one `Link` per
 * interface, followed as interfaces come and go, and each packet handed on
 * once, by the link of its source's subnet.
 * @module
 */
import {
  type AdvertInterface,
  inSubnet,
  type InterfaceLister,
  interfacesKey,
} from "./interfaces.ts";
import { IngressBudget } from "./budget.ts";
import { Link, type MdnsPacket, type Sender } from "./link.ts";
import { RecentPackets } from "./copies.ts";

/** What the responder tells the log. */
export type ResponderLog = (level: "debug" | "info" | "warn", message: string) => void;

/** What `Links` is built with. */
export interface LinksOptions {
  listInterfaces: InterfaceLister;
  log: ResponderLog;
  /** A packet for the responder, on the link of its source's subnet, copies dropped. */
  onPacket: (message: MdnsPacket, from: Sender, link: Link) => void;
  /** A link opened on a new interface (names already won are announced there). */
  onOpen: (link: Link) => void;
  /** Whether the responder stopped: no link opens then. */
  isStopped: () => boolean;
}

/** The open links, by interface. */
export class Links {
  #links = new Map<string, Link>();
  #budget = new IngressBudget();
  /** Packets just handled (a multicast one reaches every link's socket). */
  #recent = new RecentPackets();
  #interfacesKey = "";
  #options: LinksOptions;

  /** Opens nothing until `refresh()`. */
  constructor(options: LinksOptions) {
    this.#options = options;
  }

  /** The links open now. */
  list(): Link[] {
    return [...this.#links.values()];
  }

  /** Whether `link` is still one of the open links. */
  isOpen(link: Link): boolean {
    return this.list().includes(link);
  }

  /** Packets decoded and refused before decoding since the start (a flood shows here). */
  get dropped(): number {
    return this.#budget.dropped;
  }

  /** Reads the interface list again: opens sockets on new interfaces, closes those of gone ones. */
  async refresh(): Promise<void> {
    const { log, isStopped } = this.#options;
    let list: AdvertInterface[];
    try {
      list = this.#options.listInterfaces();
    } catch (error) {
      log("warn", `mDNS: cannot list the network interfaces: ${(error as Error).message}`);
      return;
    }
    const key = interfacesKey(list);
    if (key === this.#interfacesKey) return;
    this.#interfacesKey = key;
    const wanted = new Map(list.map((i) => [`${i.name} ${interfacesKey([i])}`, i]));
    for (const [id, link] of this.#links) {
      if (wanted.has(id)) continue;
      this.#links.delete(id);
      log("info", `mDNS: interface ${link.iface.name} (${link.iface.address}) is gone`);
      await link.close();
    }
    for (const [id, iface] of wanted) {
      if (this.#links.has(id) || isStopped()) continue;
      if (!await this.#open(id, iface)) return;
    }
  }

  /** Opens a link on `iface`; false when the responder stopped meanwhile. */
  async #open(id: string, iface: AdvertInterface): Promise<boolean> {
    try {
      const link = await Link.open(iface, this.#budget);
      if (this.#options.isStopped()) {
        await link.close();
        return false;
      }
      link.onpacket = (p, from, l, isLocal) => this.#route(p, from, l, isLocal);
      this.#links.set(id, link);
      this.#options.log(
        "debug",
        `mDNS: advertising on ${iface.name} (${iface.addresses.join(", ")})`,
      );
      this.#options.onOpen(link);
    } catch (error) {
      this.#options.log("warn", cannotOpen(iface, error as Error & { code?: string }));
    }
    return true;
  }

  /** Closes every link. */
  async close(): Promise<void> {
    const links = this.list();
    this.#links.clear();
    await Promise.all(links.map((link) => link.close()));
  }

  /**
   * Hands a packet to the link of its source's subnet, once: a unicast query to port 5353
   * reaches one socket whatever its source (RFC 6762 s.5.5), a multicast one every socket.
   * A source in no link's subnet is not answered.
   */
  #route(message: MdnsPacket, from: Sender, received: Link, isLocal: boolean): void {
    const link = isLocal ? received : this.list().find((l) => inSubnet(from.address, l.iface));
    if (!link) return;
    if (this.#links.size > 1 && this.#recent.isCopy(message, from, link.iface.name)) return;
    this.#options.onPacket(message, from, link);
  }
}

function cannotOpen(iface: AdvertInterface, error: Error & { code?: string }): string {
  const where = `${iface.name} (${iface.address})`;
  if (error.code === "EADDRINUSE" || error instanceof Deno.errors.AddrInUse) {
    return `mDNS: not advertising on ${where}: UDP port 5353 is held by another responder that ` +
      `does not share it (no SO_REUSEADDR). Let that responder (Avahi, Bonjour) share the port, ` +
      `or turn discovery off with --mdns off`;
  }
  if (error.code === "EACCES" || error instanceof Deno.errors.PermissionDenied) {
    return `mDNS: not advertising on ${where}: binding UDP port 5353 needs privileges this ` +
      `process does not have`;
  }
  return `mDNS: not advertising on ${where}: ${error.message}`;
}

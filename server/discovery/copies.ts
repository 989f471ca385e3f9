/**
 * The copies of one multicast packet: it reaches every socket of port 5353
 * (one per interface) at once, and is handled once (`Responder`).
 * @module
 */
import type { MdnsPacket, Sender } from "./link.ts";

/** Copies of one packet (one per socket of port 5353) arrive within this, ms. */
const DUPLICATE_MS = 50;
/** Packets remembered at most; past it the old ones go, then all. */
const MAX_SEEN = 256;

/** The packets just handled, with when, to tell a copy from a packet of its own. */
export class RecentPackets {
  #seen = new Map<string, number>();

  /**
   * Whether the packet was just handled on the interface named `linkName`: the
   * copies of one multicast packet arrive together, one per socket; a repeat
   * (a probe, 250 ms later) is a packet of its own. Remembers it otherwise.
   */
  isCopy(message: MdnsPacket, from: Sender, linkName: string): boolean {
    const now = performance.now();
    const key = `${linkName}|${from.address}|${from.port}|${JSON.stringify(message)}`;
    const before = this.#seen.get(key);
    if (before !== undefined && now - before < DUPLICATE_MS) return true;
    if (this.#seen.size >= MAX_SEEN) {
      for (const [k, at] of this.#seen) if (now - at >= DUPLICATE_MS) this.#seen.delete(k);
      if (this.#seen.size >= MAX_SEEN) this.#seen.clear();
    }
    this.#seen.set(key, now);
    return false;
  }
}

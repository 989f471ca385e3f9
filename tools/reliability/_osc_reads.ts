/**
 * What the service's OSC port read while a probe sent to it: `/ping` from 127.0.0.1 answers
 * with the count of datagrams the port has read (`datagrams`, docs/osc.md), asked before and
 * after; the difference is what the service received (`countReceived`), none read is nothing
 * exercised. Used by the probes that send OSC (`osc_fuzz`, `osc_patterns`, `oscquery_edge`).
 * @module
 */
import { countReceived, requireFigures } from "./_figures.ts";
import { ANSWER_WITHIN_MS, type ServiceRun } from "./_harness.ts";
import { oscMessage } from "./_osc.ts";
import type { Tally } from "./_tally.ts";
import { UdpPeer } from "./_udp_peer.ts";

/** How often an unanswered `/ping` is sent again (UDP may drop it), ms. */
const PING_AGAIN_MS = 250;

/** The OSC port's counters in a `/ping` reply: datagrams read, and dropped by the service. */
export interface PortCounts {
  /** Datagrams the port read, less the pings that asked. */
  datagrams: number;
  /** Datagrams the service read and dropped (its reader's queue full: docs/osc.md). */
  dropped: number;
  /** The pings this asked (each is counted in later counts). */
  pings: number;
}

/**
 * The OSC port's counters (`/ping` from 127.0.0.1), its `datagrams` less the pings this asked;
 * null when no reply came within `ANSWER_WITHIN_MS`.
 */
export async function portCounts(run: ServiceRun, peer: UdpPeer): Promise<PortCounts | null> {
  const deadline = performance.now() + ANSWER_WITHIN_MS;
  peer.recent.length = 0;
  for (let pings = 1; performance.now() < deadline; pings++) {
    peer.send(oscMessage("/ping", []), run.ports.osc);
    const again = performance.now() + PING_AGAIN_MS;
    while (performance.now() < again) {
      const data = peer.reply("/ping")?.data;
      if (typeof data?.datagrams === "number") {
        return { datagrams: data.datagrams - pings, dropped: Number(data.dropped) || 0, pings };
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  return null;
}

/**
 * The datagrams the service's OSC port has read (`/ping` from 127.0.0.1, the reply's
 * `datagrams`), less the pings this asked; null when no reply came within `ANSWER_WITHIN_MS`.
 */
export async function datagramsRead(run: ServiceRun, peer: UdpPeer): Promise<number | null> {
  return (await portCounts(run, peer))?.datagrams ?? null;
}

/**
 * The datagrams read between `before` and `after` into `tally` (`received`, a note); a
 * `received` not measured when either count could not be asked. A crash restarts the count.
 */
export function countDatagramsRead(
  tally: Tally,
  counts: { before: number | null; after: number | null },
): number | null {
  const { before, after } = counts;
  if (before === null || after === null) {
    tally.note("the OSC port's count of datagrams read could not be asked (/ping unanswered)");
    requireFigures(tally, ["received"]);
    return null;
  }
  const read = after >= before ? after - before : after;
  countReceived(tally, read);
  tally.note(`the service's OSC port read ${read} datagram(s) meanwhile (/ping's count)`);
  return read;
}

/**
 * Runs `body` (which sends to the OSC port of `run`) and counts what the port read meanwhile
 * into `tally`'s `received`.
 * @example
 * ```ts
 * await withOscReads(tally, run, async () => {
 *   desk.send(oscMessage("/control/*", [{ type: "f", value: 0.5 }]), run.ports.osc);
 * });
 * ```
 */
export async function withOscReads<T>(
  tally: Tally,
  run: ServiceRun,
  body: () => Promise<T>,
): Promise<T> {
  const pinger = await UdpPeer.open("127.0.0.1");
  try {
    const before = await datagramsRead(run, pinger);
    const out = await body();
    countDatagramsRead(tally, { before, after: await datagramsRead(run, pinger) });
    return out;
  } finally {
    pinger.close();
  }
}

/**
 * Probe `mdns_flood`: eight addresses (127.0.0.20-27) send mDNS queries to
 * the service's port 5353 as fast as they can, as legacy unicast queries (from
 * their own ports), so every answer would go back to them: a reflector in the
 * making, and a decoder kept busy. The bytes answered per byte asked must stay
 * small, and local HTTP requests must be answered throughout (their p99
 * against a quiet run before the flood).
 * @module
 */
import dgram from "node:dgram";
import packet from "dns-packet";
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import { probeGet } from "./_exchange.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const LIMITS = { short: { seconds: 5 }, full: { seconds: 30 } };
const SOURCES = 8;
/** Answered bytes per asked byte, at most: the flood must not be amplified. */
const MAX_AMPLIFICATION = 1;

/** The `mdns_flood` probe. */
export const mdnsFlood: Probe = {
  name: "mdns_flood",
  summary: "eight addresses flood port 5353 with legacy queries; answers must stay small",
  figures: ["serviceRss", "playerRss", "localServed"],
  run,
};

/** What one flooding address sent (bytes, queries) and what came back to it. */
export interface FloodCount {
  sent: number;
  queries: number;
  received: number;
  answers: number;
}

/** One flooding address: its socket and counts. */
interface Source extends FloodCount {
  socket: dgram.Socket;
}

/** The notes of a flood: what was sent, what was answered, per address. */
function floodFigures(sources: readonly FloodCount[], seconds: number): string[] {
  const asked = sources.reduce((sum, s) => sum + s.sent, 0);
  const answered = sources.reduce((sum, s) => sum + s.received, 0);
  const queries = sources.reduce((sum, s) => sum + s.queries, 0);
  return [
    `${queries} queries (${(asked / 2 ** 20).toFixed(1)} MiB) from ${sources.length} addresses ` +
    `in ${seconds} s; ${answered} bytes answered: amplification ` +
    (answered / Math.max(1, asked)).toFixed(4),
    `per address, queries sent / answers received: ${
      sources.map((s) => `${s.queries}/${s.answers}`).join(", ")
    }`,
  ];
}

/**
 * The targets a flood misses: answers amplify it, or an address got no answer at all (then an
 * amplification of 0 would only say the queries never arrived, so it proves nothing).
 */
export function floodShortfalls(sources: readonly FloodCount[]): string[] {
  const missed: string[] = [];
  const asked = sources.reduce((sum, s) => sum + s.sent, 0);
  const ratio = sources.reduce((sum, s) => sum + s.received, 0) / Math.max(1, asked);
  const unanswered = sources.filter((s) => s.answers === 0).length;
  if (sources.length === 0 || unanswered > 0) {
    missed.push(
      `${unanswered} of ${sources.length} addresses got no answer: nothing shows their ` +
        "queries arrived",
    );
  }
  if (ratio > MAX_AMPLIFICATION) {
    missed.push(`mDNS answers amplify a flood ${ratio.toFixed(2)}x (at most 1x)`);
  }
  return missed;
}

async function openSource(address: string): Promise<Source> {
  const socket = dgram.createSocket({ type: "udp4" });
  const source: Source = { socket, sent: 0, queries: 0, received: 0, answers: 0 };
  socket.on("message", (bytes) => {
    source.received += bytes.length;
    source.answers++;
  });
  await new Promise<void>((resolve) => socket.bind(0, address, resolve));
  return source;
}

/** Local `GET /api/v1/app-state` round trips until `until`, ms each; a miss is a hang. */
async function localTimes(run: ServiceRun, context: ProbeContext, until: () => boolean) {
  const times: number[] = [];
  while (!until()) {
    const started = performance.now();
    const answer = await probeGet(run.ports.http, "/api/v1/app-state");
    if (answer.status !== 200) {
      context.tally.hang(`a local app-state request: ${answer.status ?? "no answer"}`);
    }
    context.tally.served(answer.status === 200);
    times.push(performance.now() - started);
    context.tally.localMs.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 20));
  }
  return times;
}

function p99(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const seconds = LIMITS[context.mode].seconds;
  await withService(tally, { args: ["--mdns", "on"] }, async (run) => {
    // A quiet second first: the figure the flood's p99 is compared with.
    const quietUntil = performance.now() + 1000;
    const quiet = await localTimes(run, context, () => performance.now() > quietUntil);
    const sources = await Promise.all(
      Array.from({ length: SOURCES }, (_, i) => openSource(`127.0.0.${20 + i}`)),
    );
    const queries = [
      packet.encode({
        type: "query",
        id: 1,
        questions: [{ name: "_services._dns-sd._udp.local", type: "PTR" }],
      }),
      packet.encode({
        type: "query",
        id: 2,
        questions: [{ name: "_app._tcp.local", type: "ANY" }],
      }),
      packet.encode({
        type: "query",
        id: 3,
        questions: [{ name: "_http._tcp.local", type: "PTR" }],
      }),
    ];
    const deadline = performance.now() + seconds * 1000;
    const flood = (async () => {
      let n = 0;
      while (performance.now() < deadline) {
        for (const source of sources) {
          const query = queries[n++ % queries.length]!;
          source.socket.send(query, 5353, "127.0.0.1");
          source.sent += query.length;
          source.queries++;
          tally.inputs++;
        }
        // About 8,000 queries a second in all, yielding so the answers are read.
        if (n % 64 === 0) await new Promise((r) => setTimeout(r, 1));
      }
    })();
    const during = await localTimes(run, context, () => performance.now() > deadline);
    await flood;
    await new Promise((r) => setTimeout(r, 500)); // late answers
    for (const line of floodFigures(sources, seconds)) tally.note(line);
    tally.note(
      `local p99: ${p99(during).toFixed(1)} ms during the flood (${
        p99(quiet).toFixed(1)
      } ms before it; ${during.length} requests, each answered within ${ANSWER_WITHIN_MS} ms)`,
    );
    for (const missed of floodShortfalls(sources)) tally.shortfall(missed);
    for (const source of sources) source.socket.close();
  });
}

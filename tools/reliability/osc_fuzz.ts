/**
 * Probe `osc_fuzz`: random UDP datagrams and mutated OSC messages and
 * bundles to the OSC port, from a local and a remote address. The service
 * runs what is valid (a local sender's actions and queries); the probe checks
 * it stays up and answers HTTP, and reads how many datagrams the port read (`/ping`'s
 * `datagrams`, docs/osc.md) before and after: none read is nothing exercised.
 * @module
 */
import dgram from "node:dgram";
import { countReceived, requireFigures } from "./_figures.ts";
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import { fuzzDatagram, oscMessage } from "./_osc.ts";
import { UdpPeer } from "./_udp_peer.ts";
import { probeGet } from "./_exchange.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const LIMITS = {
  short: { inputs: 20_000, seconds: 10 },
  full: { inputs: 100_000, seconds: 600 },
};
const BATCH = 250;

/** The `osc_fuzz` probe. */
export const oscFuzz: Probe = {
  name: "osc_fuzz",
  summary: "random and mutated OSC datagrams, local and remote",
  run,
};

function bind(address: string): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket("udp4");
    socket.once("error", reject);
    socket.bind(0, address, () => resolve(socket));
  });
}

function send(socket: dgram.Socket, data: Uint8Array, port: number): Promise<void> {
  return new Promise((resolve) => socket.send(data, port, "127.0.0.1", () => resolve()));
}

/** How often an unanswered `/ping` is sent again (UDP may drop it), ms. */
const PING_AGAIN_MS = 250;

/**
 * The datagrams the service's OSC port has read (`/ping` from 127.0.0.1, the reply's
 * `datagrams`), less the pings this asked; null when no reply came within `ANSWER_WITHIN_MS`.
 */
async function datagramsRead(run: ServiceRun, peer: UdpPeer): Promise<number | null> {
  const deadline = performance.now() + ANSWER_WITHIN_MS;
  peer.recent.length = 0;
  for (let pings = 1; performance.now() < deadline; pings++) {
    peer.send(oscMessage("/ping", []), run.ports.osc);
    const again = performance.now() + PING_AGAIN_MS;
    while (performance.now() < again) {
      const datagrams = peer.reply("/ping")?.data.datagrams;
      if (typeof datagrams === "number") return datagrams - pings;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  return null;
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  tally.requiredInputs = context.mode === "full" ? 100_000 : 0;
  const sockets = [await bind("127.0.0.1"), await bind("127.0.0.2")];
  let sendErrors = 0;
  const pinger = await UdpPeer.open("127.0.0.1");
  try {
    await withService(tally, {}, async (run) => {
      const before = await datagramsRead(run, pinger);
      // From the service's start, not the probe's: a loaded machine's start took the 10 s.
      const deadline = performance.now() + limits.seconds * 1000;
      while (tally.inputs < limits.inputs && performance.now() < deadline) {
        for (let i = 0; i < BATCH; i++) {
          tally.inputs++;
          await send(context.rng.pick(sockets), fuzzDatagram(context.rng), run.ports.osc)
            .catch(() => sendErrors++);
        }
        const health = await probeGet(run.ports.http, "/health", { timeoutMs: ANSWER_WITHIN_MS });
        if (health.status === null && !(await run.revive())) {
          tally.hang(
            `GET /health after ${tally.inputs} datagrams: no answer in ${ANSWER_WITHIN_MS} ms`,
          );
        }
      }
      const after = await datagramsRead(run, pinger);
      noteReceived(tally, before, after);
    });
  } finally {
    for (const s of sockets) s.close();
    pinger.close();
  }
  if (sendErrors > 0) tally.note(`${sendErrors} datagram(s) could not be sent`);
}

/** The datagrams the port read between `before` and `after` (a missing figure if either is). */
function noteReceived(tally: Tally, before: number | null, after: number | null): void {
  if (before === null || after === null) {
    tally.note("the OSC port's count of datagrams read could not be asked (/ping unanswered)");
    requireFigures(tally, ["received"]);
    return;
  }
  const read = after >= before ? after - before : after; // a crash restarts the count
  countReceived(tally, read);
  tally.note(`${tally.inputs} datagrams sent; ${read} read by the service's OSC port (/ping)`);
}

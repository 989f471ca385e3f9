/**
 * Probe `osc_fuzz`: random UDP datagrams and mutated OSC messages and
 * bundles to the OSC port, from a local and a remote address. The service
 * runs what is valid (a local sender's actions and queries); the probe checks
 * it stays up and answers HTTP, and reads how many datagrams the port read (`/ping`'s
 * `datagrams`, docs/osc.md) before and after: none read is nothing exercised.
 * @module
 */
import dgram from "node:dgram";
import { ANSWER_WITHIN_MS, withService } from "./_harness.ts";
import { fuzzDatagram } from "./_osc.ts";
import { withOscReads } from "./_osc_reads.ts";
import { probeGet } from "./_exchange.ts";
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

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  tally.requiredInputs = context.mode === "full" ? 100_000 : 0;
  const sockets = [await bind("127.0.0.1"), await bind("127.0.0.2")];
  let sendErrors = 0;
  try {
    await withService(tally, {}, (run) =>
      withOscReads(tally, run, async () => {
        // From the service's start, not the probe's: a loaded machine's start took the 10 s.
        const deadline = performance.now() + limits.seconds * 1000;
        while (tally.inputs < limits.inputs && performance.now() < deadline) {
          for (let i = 0; i < BATCH; i++) {
            tally.inputs++;
            await send(context.rng.pick(sockets), fuzzDatagram(context.rng), run.ports.osc)
              .catch(() => sendErrors++);
          }
          const health = await probeGet(run.ports.http, "/health", {
            timeoutMs: ANSWER_WITHIN_MS,
          });
          if (health.status === null && !(await run.revive())) {
            tally.hang(
              `GET /health after ${tally.inputs} datagrams: no answer in ${ANSWER_WITHIN_MS} ms`,
            );
          }
        }
      }));
  } finally {
    for (const s of sockets) s.close();
  }
  if (sendErrors > 0) tally.note(`${sendErrors} datagram(s) could not be sent`);
}

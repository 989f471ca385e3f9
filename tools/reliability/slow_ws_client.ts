/**
 * Probe `slow_ws_client`: a remote, unauthenticated WebSocket client sends
 * messages as fast as it can and never reads, so every answer the service
 * owes it piles up. The service's memory must stay bounded, and another
 * (local) client must still get its answers within 5 s. What the service received: the
 * flood's bytes its process read from the socket, as the kernel counts them (`_tcp_read.ts`;
 * the flooder reads no answers to count), in whole messages: none read is nothing exercised.
 * @module
 */
import { countReceived, requireFigures } from "./_figures.ts";
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import { type ClientEnd, serviceReadBytes } from "./_tcp_read.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import { WsClient } from "./_ws.ts";
import { encodeFrame, Opcode } from "./_ws_frames.ts";

const LIMITS = { short: { seconds: 8 }, full: { seconds: 60 } };
const FRAMES_PER_WRITE = 2000;

/** The `slow_ws_client` probe. */
export const slowWsClient: Probe = {
  name: "slow_ws_client",
  summary: "a remote WebSocket client floods messages and never reads; others must be served",
  figures: ["serviceRss", "playerRss", "localServed"],
  run,
};

/** What became of a local client's ping. */
type PingOutcome = "answered" | "closed" | "timeout";

/** A local client's round trip: a ping per call, reconnecting when closed. */
class Bystander {
  #ws: WsClient | null = null;
  #answers = new Set<string>();
  #n = 0;

  async ping(run: ServiceRun): Promise<PingOutcome> {
    try {
      if (!this.#ws || this.#ws.isClosed) {
        this.#ws = await WsClient.open({ port: run.ports.ws, timeoutMs: ANSWER_WITHIN_MS });
        this.#ws.ontext = (text) => {
          const id = /"id":"(b\d+)"/.exec(text)?.[1];
          if (id) this.#answers.add(id);
        };
      }
      const ws = this.#ws;
      const id = `b${this.#n++}`;
      ws.send({ type: "ping", id });
      await ws.waitUntil(() => this.#answers.has(id) || ws.isClosed, ANSWER_WITHIN_MS);
      return this.#answers.has(id) ? "answered" : ws.isClosed ? "closed" : "timeout";
    } catch {
      return "timeout"; // the upgrade itself was not answered
    }
  }

  close(): void {
    this.#ws?.destroy();
  }
}

const PING = '{"type":"ping","id":1}';
const FLOODER = "127.0.0.2";

/**
 * Floods until `deadline` (or the flooder's close); what the service read of the connection is
 * sampled after each write, while the connection lasts (the service ends it soon after closing it:
 * `server/net/websocket.ts`, `AFTER_CLOSE_BYTES`).
 */
async function flood(
  flooder: WsClient,
  deadline: number,
  o: { tally: Tally; reads: ReadWatch },
): Promise<void> {
  const { tally, reads } = o;
  const frame = encodeFrame(new TextEncoder().encode(PING), { opcode: Opcode.text });
  const burst = new Uint8Array(frame.length * FRAMES_PER_WRITE);
  for (let i = 0; i < FRAMES_PER_WRITE; i++) burst.set(frame, i * frame.length);
  while (performance.now() < deadline && !flooder.isClosed) {
    // Bounded by the deadline even if the service stops reading (the write never completes).
    const wrote = await Promise.race([
      flooder.flush(burst),
      new Promise<boolean>((r) => setTimeout(() => r(false), deadline - performance.now())),
    ]);
    if (!wrote) break;
    tally.inputs += FRAMES_PER_WRITE;
    if (reads.isOpen) await reads.sample();
  }
  tally.note(
    `the flooder sent ${tally.inputs} messages (${
      Math.round(tally.inputs * frame.length / 2 ** 20)
    } MiB) and was ${
      flooder.isClosed
        ? `closed by the service (code ${flooder.closeCode ?? "none"})`
        : "never closed"
    }${reads.isOpen ? "" : "; the service ended its connection"}`,
  );
}

/**
 * The flood's messages the service read: the most bytes it had read of the flooder's
 * connection (`_tcp_read.ts`) past what it had read before the flood, in whole messages.
 */
export function messagesRead(
  bytes: { before: number | null; most: number | null },
  messageBytes: number,
): number | null {
  if (bytes.before === null || bytes.most === null) return null;
  return Math.max(0, Math.floor((bytes.most - bytes.before) / messageBytes));
}

/** Samples what the service has read of the flooder's connection; the most seen. */
class ReadWatch {
  #client: ClientEnd;
  most: number | null = null;
  /** False once a sample found the connection gone (after one found it there). */
  isOpen = true;

  constructor(client: ClientEnd) {
    this.#client = client;
  }

  async sample(): Promise<number | null> {
    const bytes = await serviceReadBytes(this.#client);
    if (bytes !== null) this.most = Math.max(this.most ?? 0, bytes);
    else if (this.most !== null) this.isOpen = false;
    return bytes;
  }
}

/** The bystander's pings until `deadline`, each one a measure of local clients served. */
async function watchBystander(
  run: ServiceRun,
  deadline: number,
  o: { tally: Tally; reads: ReadWatch },
): Promise<void> {
  const bystander = new Bystander();
  while (performance.now() < deadline) {
    const outcome = await bystander.ping(run);
    o.tally.served(outcome === "answered");
    if (outcome === "timeout") {
      o.tally.hang(`a local WebSocket ping: no answer in ${ANSWER_WITHIN_MS} ms during the flood`);
    } else if (outcome === "closed") {
      o.tally.example("local", "a local WebSocket client was closed instead of answered");
    }
    await Promise.all([o.reads.sample(), new Promise((r) => setTimeout(r, 500))]);
  }
  bystander.close();
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  requireFigures(tally, ["received"]);
  await withService(tally, {}, async (run) => {
    // From the service's start, not the probe's: a loaded machine's start took the 8 s.
    const deadline = performance.now() + LIMITS[context.mode].seconds * 1000;
    const flooder = await WsClient.open({ port: run.ports.ws, localAddress: FLOODER });
    flooder.pause();
    const reads = new ReadWatch({ address: FLOODER, port: flooder.localPort });
    const before = await reads.sample();
    await Promise.all([
      flood(flooder, deadline, { tally, reads }),
      watchBystander(run, deadline, { tally, reads }),
    ]);
    await reads.sample();
    const messageBytes = encodeFrame(new TextEncoder().encode(PING), { opcode: Opcode.text })
      .length;
    const read = messagesRead({ before, most: reads.most }, messageBytes);
    if (read === null) {
      tally.note("what the service read of the flooder could not be asked (ss -ti)");
    } else {
      countReceived(tally, read);
      tally.note(`the service read ${read} of them (the kernel's count of bytes it took, ss -ti)`);
    }
    flooder.destroy();
  });
}

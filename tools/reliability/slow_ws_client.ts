/**
 * Probe `slow_ws_client`: a remote, unauthenticated WebSocket client sends
 * messages as fast as it can and never reads, so every answer the service
 * owes it piles up. The service's memory must stay bounded, and another
 * (local) client must still get its answers within 5 s.
 * @module
 */
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
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

async function run(context: ProbeContext): Promise<void> {
  const started = performance.now();
  const { tally } = context;
  const deadline = started + LIMITS[context.mode].seconds * 1000;
  const frame = encodeFrame(new TextEncoder().encode('{"type":"ping","id":1}'), {
    opcode: Opcode.text,
  });
  const burst = new Uint8Array(frame.length * FRAMES_PER_WRITE);
  for (let i = 0; i < FRAMES_PER_WRITE; i++) burst.set(frame, i * frame.length);
  const bystander = new Bystander();
  await withService(tally, {}, async (run) => {
    const flooder = await WsClient.open({ port: run.ports.ws, localAddress: "127.0.0.2" });
    flooder.pause();
    let served = true;
    const flood = (async () => {
      while (performance.now() < deadline && !flooder.isClosed) {
        // Bounded by the deadline even if the service stops reading (the write never completes).
        const wrote = await Promise.race([
          flooder.flush(burst),
          new Promise<boolean>((r) => setTimeout(() => r(false), deadline - performance.now())),
        ]);
        if (!wrote) break;
        tally.inputs += FRAMES_PER_WRITE;
      }
    })();
    while (performance.now() < deadline) {
      const outcome = await bystander.ping(run);
      if (outcome !== "answered") served = false;
      if (outcome === "timeout") {
        tally.hang(`a local WebSocket ping: no answer in ${ANSWER_WITHIN_MS} ms during the flood`);
      } else if (outcome === "closed") {
        tally.example("local", "a local WebSocket client was closed instead of answered");
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    await flood;
    tally.localServed = served;
    tally.note(
      `the flooder sent ${tally.inputs} messages (${
        Math.round(tally.inputs * frame.length / 2 ** 20)
      } MiB) and was ${
        flooder.isClosed
          ? `closed by the service (code ${flooder.closeCode ?? "none"})`
          : "never closed"
      }`,
    );
    flooder.destroy();
    bystander.close();
  });
}

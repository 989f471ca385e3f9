/**
 * Probe `oscquery_edge`: the OSCQuery port under the attacks of issue 30.
 * Under a lowered open-files limit, idle half-sent requests from many
 * remote addresses (127.0.3.x, none paired) are held open against it (they
 * used to end the service: `Too many open files`); a local client must be
 * answered meanwhile and after. Then `Host` and `Origin` of another site must
 * be refused (403), the WebSocket upgrade included. Last, 50 local WebSockets
 * LISTEN to every Control and never read while the Controls stream (they
 * used to grow the service to 811 MB): the service must stay small. What the service received:
 * the half-sent connections it refused or closed, the Host and Origin requests it answered, and
 * the datagrams its OSC port read of the stream (`/ping`'s count).
 * @module
 */
import { withService } from "./_harness.ts";
import { countReceived, requireFigures } from "./_figures.ts";
import { dropClosed, openIdle } from "./_idle_connections.ts";
import { oscMessage } from "./_osc.ts";
import { withOscReads } from "./_osc_reads.ts";
import type { RawConnection } from "./_raw_http.ts";
import { exchange, requestText } from "./_exchange.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import { closingNotes, localRequest, sleep, timeLocal, UdpPeer } from "./_udp_peer.ts";

const LIMITS = {
  short: { openFiles: 1024, connections: 1500, addresses: 40, holdMs: 5000, listenMs: 5000 },
  full: { openFiles: 2048, connections: 3000, addresses: 60, holdMs: 40_000, listenMs: 75_000 },
};
const LISTENERS = 50;
const LETTERS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"];

/** The `oscquery_edge` probe. */
export const oscqueryEdge: Probe = {
  name: "oscquery_edge",
  summary: "half-sent connections, Host/Origin and never-reading LISTEN sockets on OSCQuery",
  run,
};

/** A client text frame (masked, with a zero mask: the payload goes as it is). */
function textFrame(text: string): Uint8Array {
  const payload = new TextEncoder().encode(text);
  const head = payload.length < 126
    ? [0x81, 0x80 | payload.length]
    : [0x81, 0x80 | 126, payload.length >> 8, payload.length & 255];
  const frame = new Uint8Array(head.length + 4 + payload.length);
  frame.set(head);
  frame.set(payload, head.length + 4);
  return frame;
}

function upgradeText(port: number, headers: Record<string, string> = {}): string {
  return requestText("GET", "/", {
    host: `127.0.0.1:${port}`,
    headers: {
      connection: "Upgrade",
      upgrade: "websocket",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      "sec-websocket-version": "13",
      ...headers,
    },
  });
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  requireFigures(tally, ["received"]);
  await withService(tally, { openFiles: limits.openFiles }, async (run) => {
    const port = (run.service.ready.ports as { oscQuery?: number }).oscQuery;
    if (port === undefined) {
      tally.shortfall("the service reported no OSCQuery port");
      return;
    }
    const localValue = () => localRequest(port, "GET", "/mute?VALUE");
    const memory = (phase: string) =>
      `service RSS ${tally.memory.lastMb("service") ?? "-"} MB after ${phase} (peak so far ${
        tally.memory.peakMb("service") ?? "-"
      } MB)`;
    const phases: string[] = [];
    await halfSent(context, port, localValue);
    phases.push(memory("the half-sent connections"));
    if (!run.service.isRunning) return;
    await hostAndOrigin(context, port);
    await withOscReads(tally, run, () => neverReading(context, port, run.ports.osc, localValue));
    await sleep(1100); // one more sample
    phases.push(memory("the never-reading LISTEN sockets"));
    tally.note(phases.join("; "));
  });
  closingNotes(tally);
}

/** Idle half-sent requests from many addresses, refilled for the hold; local asks meanwhile. */
async function halfSent(
  context: ProbeContext,
  port: number,
  localValue: () => Promise<boolean>,
): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  const open: RawConnection[] = [];
  let next = 0;
  const addresses = () => `127.0.3.${2 + (next++ % limits.addresses)}`;
  let isHolding = true;
  const local = timeLocal(tally, localValue, () => !isHolding, 100);
  let peak = 0;
  let refused = 0;
  try {
    const holdUntil = performance.now() + limits.holdMs;
    const request = `GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n`;
    do {
      countReceived(tally, dropClosed(open));
      const count = limits.connections - open.length;
      const more = await openIdle({ port, addresses, count, request }, open);
      tally.inputs += more.opened + more.refused;
      countReceived(tally, more.answered);
      refused += more.refused;
      peak = Math.max(peak, open.length);
      await sleep(300);
    } while (performance.now() < holdUntil);
    countReceived(tally, dropClosed(open));
  } finally {
    isHolding = false;
    await local;
    for (const c of open) c.destroy();
  }
  tally.note(
    `half-sent connections from ${limits.addresses} addresses under --nofile=${limits.openFiles}: ` +
      `up to ${peak} held at once, ${refused} refused (503 TOO_MANY_CONNECTIONS or closed), ` +
      `held for ${limits.holdMs / 1000} s`,
  );
  await sleep(300);
  if (!(await localValue())) tally.shortfall("OSCQuery did not answer a local client after");
}

/** Another site's Host and Origin: refused, the WebSocket upgrade too. */
async function hostAndOrigin(context: ProbeContext, port: number): Promise<void> {
  const { tally } = context;
  const cases: Array<[string, string]> = [
    ["Host: evil.example", requestText("GET", "/control/A?VALUE", { host: "evil.example" })],
    [
      "Origin: http://evil.example",
      requestText("GET", "/", {
        host: `127.0.0.1:${port}`,
        headers: { origin: "http://evil.example" },
      }),
    ],
    [
      "a WebSocket with Origin: http://evil.example",
      upgradeText(port, { origin: "http://evil.example" }),
    ],
    ["a WebSocket with Host: evil.example", upgradeText(port, { host: "evil.example" })],
  ];
  const outcomes: string[] = [];
  for (const [what, data] of cases) {
    const answer = await exchange({ port, data, answerWithinMs: 5000, timeoutMs: 5000 });
    tally.inputs++;
    if (answer.status !== null) countReceived(tally, 1);
    outcomes.push(`${what}: ${answer.status ?? "no answer"}`);
    if (answer.status !== 403) tally.shortfall(`${what} was answered ${answer.status}, not 403`);
  }
  tally.note(outcomes.join("; "));
}

/** Local WebSockets that LISTEN to every Control and never read, while the Controls stream. */
async function neverReading(
  context: ProbeContext,
  port: number,
  oscPort: number,
  localValue: () => Promise<boolean>,
): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  const sockets: Deno.Conn[] = [];
  const desk = await UdpPeer.open("127.0.0.1");
  try {
    const listens = LETTERS.map((l) =>
      textFrame(JSON.stringify({ COMMAND: "LISTEN", DATA: `/control/${l}` }))
    );
    for (let i = 0; i < LISTENERS; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(new TextEncoder().encode(upgradeText(port)));
      for (const frame of listens) await conn.write(frame);
      sockets.push(conn); // never read from here on
    }
    tally.inputs += LISTENERS;
    let isStreaming = true;
    const local = timeLocal(tally, localValue, () => !isStreaming, 100);
    const until = performance.now() + limits.listenMs;
    let n = 0;
    while (performance.now() < until) {
      for (let i = 0; i < 20; i++) {
        desk.send(oscMessage("/control/*", [{ type: "f", value: (n++ % 1000) / 1000 }]), oscPort);
      }
      await sleep(5);
    }
    isStreaming = false;
    await local;
    tally.inputs += n;
    // Which sockets the service closed: read what each holds until its end, briefly.
    let closed = 0;
    const buffer = new Uint8Array(1 << 20);
    await Promise.all(sockets.map(async (conn) => {
      const deadline = performance.now() + 2000;
      try {
        while (performance.now() < deadline) {
          const read = await Promise.race([conn.read(buffer), sleep(200).then(() => -1)]);
          if (read === null) {
            closed++;
            return;
          }
          if (read === -1) return; // open and quiet
        }
      } catch {
        closed++;
      }
    }));
    tally.note(
      `${LISTENERS} local WebSockets LISTENed to the 26 Controls and never read while ` +
        `${n} /control/* datagrams streamed for ${limits.listenMs / 1000} s; ${closed} were ` +
        "closed by the service (1013 once behind for wsLagCloseMs)",
    );
  } finally {
    desk.close();
    for (const conn of sockets) {
      try {
        conn.close();
      } catch { /* closed */ }
    }
  }
}

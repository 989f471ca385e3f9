/**
 * What the service allocates under the `oscquery_edge` probe's last load (50
 * local OSCQuery WebSockets that LISTEN to every Control and never read,
 * while `/control/*` streams at about 4,000 datagrams a second), by function:
 * the service runs with `--inspect`, and the inspector's sampling heap
 * profiler counts objects already collected too, so the garbage that waits
 * for a major collection shows where it is made (docs/osc.md, "Speed").
 *
 * ```sh
 * deno run -A tools/reliability/alloc_profile.ts [seconds=30] [listeners=50]
 * ```
 * @module
 */
import { oscMessage } from "./_osc.ts";
import { MAIN_PATH, SERVICE_FLAGS } from "./_service.ts";
import { UdpPeer } from "./_udp_peer.ts";
import { readMemory } from "./_proc.ts";

const SECONDS = Number(Deno.args[0] ?? 30);
const LISTENERS = Number(Deno.args[1] ?? 50);
const INSPECT_PORT = 9339;
const LETTERS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"];

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface SampleNode {
  callFrame: CallFrame;
  selfSize: number;
  children: SampleNode[];
}

/** A client text frame with a zero mask (the payload goes as it is). */
function textFrame(text: string): Uint8Array {
  const payload = new TextEncoder().encode(text);
  const frame = new Uint8Array(6 + payload.length);
  frame.set([0x81, 0x80 | payload.length]);
  frame.set(payload, 6);
  return frame;
}

/** The inspector's protocol over its WebSocket: `call(method, params)` answers its result. */
async function inspector(port: number) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve) => (ws.onopen = resolve));
  const waiting = new Map<number, (result: unknown) => void>();
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    waiting.get(message.id)?.(message.result ?? message.error);
  };
  let id = 0;
  return {
    call: <T>(method: string, params: unknown = {}) =>
      new Promise<T>((resolve) => {
        waiting.set(++id, resolve as (result: unknown) => void);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

async function listen(port: number): Promise<Deno.Conn[]> {
  const sockets: Deno.Conn[] = [];
  for (let i = 0; i < LISTENERS; i++) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(new TextEncoder().encode(
      `GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: Upgrade\r\nupgrade: websocket\r\n` +
        "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n",
    ));
    for (const l of LETTERS) {
      await conn.write(textFrame(JSON.stringify({ COMMAND: "LISTEN", DATA: `/control/${l}` })));
    }
    sockets.push(conn); // never read
  }
  return sockets;
}

/** Allocated bytes by function (self), largest first. */
function byFunction(head: SampleNode): Array<[string, number]> {
  const sizes = new Map<string, number>();
  const walk = (node: SampleNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = `${functionName || "(anonymous)"} ${url.split("/").slice(-2).join("/")}:${
      lineNumber + 1
    }`;
    sizes.set(where, (sizes.get(where) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(head);
  return [...sizes].sort((a, b) => b[1] - a[1]);
}

const dataDir = await Deno.makeTempDir({ prefix: "cueport-alloc-" });
const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    `--inspect=127.0.0.1:${INSPECT_PORT}`,
    ...SERVICE_FLAGS,
    MAIN_PATH,
    ...["--data-dir", dataDir, "--host", "127.0.0.1", "--mdns", "off", "--log-level", "warn"],
    ...["--http-port", "0", "--ws-port", "0", "--osc-port", "0", "--osc-query-port", "0"],
    ...["--legacy-http-port", "off", "--legacy-ws-port", "off"],
  ],
  stdout: "piped",
  stderr: "null",
}).spawn();
try {
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) text += (await lines.read()).value ?? "";
  void (async () => {
    while (!(await lines.read()).done) { /* drain */ }
  })();
  const ready = JSON.parse(text.slice(0, text.indexOf("\n")));
  const sockets = await listen(ready.ports.oscQuery);
  const inspect = await inspector(INSPECT_PORT);
  await inspect.call("HeapProfiler.enable");
  await inspect.call("HeapProfiler.startSampling", {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  const desk = await UdpPeer.open("127.0.0.1");
  const until = performance.now() + SECONDS * 1000;
  let sent = 0;
  while (performance.now() < until) {
    for (let i = 0; i < 20; i++) {
      desk.send(
        oscMessage("/control/*", [{ type: "f", value: (sent++ % 1000) / 1000 }]),
        ready.ports.osc,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const { profile } = await inspect.call<{ profile: { head: SampleNode } }>(
    "HeapProfiler.stopSampling",
  );
  const memory = (await readMemory([ready.pid])).get(ready.pid);
  const rows = byFunction(profile.head);
  const total = rows.reduce((sum, [, size]) => sum + size, 0);
  console.log(
    `${sent} datagrams of /control/* in ${SECONDS} s beside ${LISTENERS} LISTEN clients: ` +
      `${(total / 2 ** 20).toFixed(0)} MB allocated; service RSS ${
        memory ? Math.round(memory.rss / 1024) : "?"
      } MB (peak ${memory ? Math.round(memory.hwm / 1024) : "?"} MB)`,
  );
  for (const [where, size] of rows.slice(0, 30)) {
    console.log(`${((100 * size) / total).toFixed(1).padStart(5)} %  ${where}`);
  }
  desk.close();
  for (const conn of sockets) conn.close();
  inspect.close();
} finally {
  child.kill("SIGTERM");
  await child.status;
  await Deno.remove(dataDir, { recursive: true });
}

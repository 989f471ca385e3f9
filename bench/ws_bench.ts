/**
 * The WebSocket part of `deno task bench`: action round trip over one
 * socket, a sustained SET_CONTROL stream from one client, and fan-out of one
 * change to 500 and to 1,000 clients (`--clients 500,1000`). Cueport runs as
 * its own process; clients run here.
 *
 * Every client authenticates with the operator credential of the service's
 * data dir, as the operator commands do: a local client without credentials
 * would be recorded as one approved device each, and the registry keeps
 * 1,000 (the 1,001st would evict the first). The service is started with
 * `--max-connections` above the largest fan-out: the default budget of a port
 * (512, plus 64 kept for local clients) is less than 1,000 sockets. Both ends
 * hold one descriptor per client; Deno raises its soft open-files limit to the
 * hard one itself, so a fan-out is skipped only when the hard limit is too low.
 * @module
 */
import { parseArgs } from "node:util";
import { startCueport } from "./_cueport.ts";
import { readOperatorToken } from "../server/auth/operator.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    clients: { type: "string", default: "500,1000" },
    stream: { type: "string", default: "100000" },
  },
});
/** The fan-out sizes, smallest first (the clients of one are kept for the next). */
const SIZES = values.clients.split(",").map(Number).sort((a, b) => a - b);
if (SIZES.some((n) => !Number.isInteger(n) || n < 1)) {
  throw new Error(`--clients: positive integers, comma-separated; got ${values.clients}`);
}
/** Descriptors a process needs beside its sockets (Deno's own, the service's files). */
const SPARE_FILES = 200;
const here = (path: string) => new URL(path, import.meta.url).pathname;

// deno-lint-ignore no-explicit-any
type Msg = any;

/** The open-files limit of this process (a child's shell inherits it), or null. */
function openFilesLimit(): number | null {
  try {
    const out = new Deno.Command("sh", { args: ["-c", "ulimit -n"], stderr: "null" }).outputSync();
    const text = new TextDecoder().decode(out.stdout).trim();
    return text === "unlimited" ? Infinity : Number(text) || null;
  } catch {
    return null;
  }
}

/** A bench client: authenticated, with answers by id and a hook for state updates. */
async function connect(url: string, onUpdate?: (m: Msg) => void) {
  const ws = new WebSocket(url);
  const waiting = new Map<string, (m: Msg) => void>();
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.event === "state-update") onUpdate?.(m);
    else if (m.id !== undefined && m.id !== null) {
      waiting.get(String(m.id))?.(m);
      waiting.delete(String(m.id));
    }
  };
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  const request = (message: Record<string, unknown>, id: string) =>
    new Promise<Msg>((resolve) => {
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ ...message, id }));
    });
  const auth = await request({ type: "auth", payload: { token } }, "auth");
  if (auth.data?.authenticated !== true) throw new Error(`auth refused: ${JSON.stringify(auth)}`);
  return { ws, request, waiting };
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

const dataDir = await Deno.makeTempDir({ prefix: "cueport-wsbench-" });
const cueport = await startCueport(dataDir, [
  ...["--max-connections", String(SIZES.at(-1)! + 100)],
]);
const ready = { ports: cueport.ports };
/** Written by the service on its first start, before its ready line. */
const token = await readOperatorToken(dataDir);
if (token === null) throw new Error(`no operator credential in ${dataDir}`);
const openFiles = openFilesLimit();
const url = `ws://127.0.0.1:${ready.ports.ws}/v1`;
const rows: Array<{ name: string; value: string; target: string }> = [];

try {
  // 1. Round trip: one action at a time over one socket.
  const one = await connect(url);
  const rtt: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const t = performance.now();
    await one.request({
      type: "action",
      action: { name: "SET_CONTROL", params: ["A", (i % 100) / 100] },
    }, `rt${i}`);
    if (i >= 500) rtt.push(performance.now() - t); // the first 500 warm up
  }
  rows.push({
    name: "action round trip, one socket",
    value: `p50 ${pct(rtt, 0.5).toFixed(2)} ms, p99 ${pct(rtt, 0.99).toFixed(2)} ms`,
    target: "p99 < 2 ms",
  });

  // 2. Sustained stream: SET_CONTROL pipelined (at most 1000 in flight); answers must come back in order.
  const total = Number(values.stream);
  let answered = 0, outOfOrder = 0, sent = 0, lastSeen = -1;
  const done = Promise.withResolvers<void>();
  one.ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (typeof m.id !== "string" || !m.id.startsWith("s")) return;
    const n = Number(m.id.slice(1));
    if (n !== lastSeen + 1 || m.type !== "response") outOfOrder++;
    lastSeen = n;
    answered++;
    pump();
    if (answered === total) done.resolve();
  };
  const pump = () => {
    while (sent < total && sent - answered < 1000) {
      one.ws.send(
        JSON.stringify({
          id: `s${sent}`,
          type: "action",
          action: { name: "SET_CONTROL", params: ["B", sent / total] },
        }),
      );
      sent++;
    }
  };
  const started = performance.now();
  pump();
  await done.promise;
  const rate = total / ((performance.now() - started) / 1000);
  const state = await fetch(`http://127.0.0.1:${ready.ports.http}/api/v1/projects/demo/playstate`)
    .then((r) => r.json());
  rows.push({
    name: `SET_CONTROL stream, one client (${total} messages)`,
    value: `${rate.toFixed(0)} msg/s, ${outOfOrder} out of order, last value ${
      state.controls.B === (total - 1) / total ? "applied" : "WRONG"
    }`,
    target: ">= 20000 msg/s",
  });
  one.ws.close();

  // 3. Fan-out: one change to N clients; the time until the last one has it. The clients of a
  // size stay connected for the next one.
  let expected = 0;
  let received = 0;
  let changeDone = Promise.withResolvers<void>();
  const clients: Array<{ ws: WebSocket }> = [];
  const onUpdate = (m: Msg) => {
    if (!m.payload.some((u: Msg) => u.updateType === "appState")) return;
    received++;
    if (received === expected) changeDone.resolve();
  };
  const control = await connect(url);
  for (const n of SIZES) {
    const name = `fan-out of one change to ${n} clients (time until the last has it)`;
    if (openFiles !== null && openFiles < n + SPARE_FILES) {
      rows.push({
        name,
        value: `skipped: open-files limit ${openFiles} is below ${
          n + SPARE_FILES
        } (raise the hard limit: ulimit -Hn, LimitNOFILE)`,
        target: "p99 < 25 ms",
      });
      continue;
    }
    while (clients.length < n) clients.push(await connect(url, onUpdate));
    const arrivals: number[] = [];
    for (let round = 0; round < 30; round++) {
      received = 0;
      expected = n;
      changeDone = Promise.withResolvers<void>();
      const t = performance.now();
      control.ws.send(
        JSON.stringify({ id: `f${n}-${round}`, type: "action", action: { name: "MUTE_TOGGLE" } }),
      );
      const timer = setTimeout(
        () =>
          changeDone.reject(new Error(`fan-out to ${n}: ${received} had the change after 10 s`)),
        10_000,
      );
      await changeDone.promise.finally(() => clearTimeout(timer));
      if (round >= 5) arrivals.push(performance.now() - t);
    }
    rows.push({
      name,
      value: `p50 ${pct(arrivals, 0.5).toFixed(1)} ms, p99 ${
        pct(arrivals, 0.99).toFixed(1)
      } ms (includes the 5 ms coalescing window)`,
      target: "p99 < 25 ms",
    });
  }
  for (const c of [...clients, control]) c.ws.close();
} finally {
  await cueport.stop();
  await Deno.remove(dataDir, { recursive: true });
}

console.log("\nCueport WebSocket benchmark (loopback)\n");
console.log("| scenario | measured | target |");
console.log("| --- | --- | --- |");
for (const r of rows) console.log(`| ${r.name} | ${r.value} | ${r.target} |`);
await Deno.mkdir(here("./results"), { recursive: true });
const file = here(`./results/ws-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
await Deno.writeTextFile(
  file,
  JSON.stringify({ at: new Date().toISOString(), rows }, null, 2) + "\n",
);
console.log(`\nwritten to ${file}`);

/**
 * Is there an HTTP engine cheaper than `Deno.serve` for the action? Three servers in this process
 * read the action's JSON body and answer the same 156 bytes of JSON: `Deno.serve`, and the least
 * an HTTP/1.1 engine written in JavaScript must do (a request head found and split, the body
 * read by its `content-length`, one write of the answer, keep-alive) over `Deno.listen` and over
 * `node:net`. Each is driven in turn by `load.ts` (its own process); this process's CPU per
 * request and each engine's paired per-round ratio to `Deno.serve` (docs/load.md, "Session 14").
 * The JavaScript engines are a floor, not an engine: no chunked bodies, limits or deadlines.
 *
 * `deno run -A bench/http_engine_bench.ts --rounds 8`
 * @module
 */
import { parseArgs } from "node:util";
import { createServer, type Socket } from "node:net";
import { postLoad, threadCpuMicros } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string", default: "8" }, seconds: { type: "string", default: "2" } },
});

const ANSWER = JSON.stringify({
  ok: true,
  action: "SET_CONTROL",
  projectId: "demo",
  params: { controlID: "A", value: 0.5 },
  applied: true,
  message: "Control A = 0.5: 1 Target(s) written",
});
const encoder = new TextEncoder();
const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder();

/** The answer's bytes, head and body, with today's date as Deno.serve sends it. */
function answerBytes(): Uint8Array {
  return encoder.encode(
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${ANSWER.length}\r\n` +
      `date: ${new Date().toUTCString()}\r\n\r\n${ANSWER}`,
  );
}

/** The end of a request head in `bytes` (the index of its CRLFCRLF), or -1. */
function headEnd(bytes: Uint8Array, from: number, to: number): number {
  for (let i = Math.max(0, from - 3); i + 4 <= to; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

/** The requests whole in `bytes[0, to)`, each answered by `answer`: the bytes used. */
function serveWhole(bytes: Uint8Array, to: number, answer: () => void): number {
  let at = 0;
  for (;;) {
    const end = headEnd(bytes.subarray(at), 0, to - at);
    if (end < 0) return at;
    const head = latin1.decode(bytes.subarray(at, at + end)).toLowerCase();
    const length = Number(/\r\ncontent-length: *(\d+)/.exec(head)?.[1] ?? 0);
    const bodyAt = at + end + 4;
    if (bodyAt + length > to) return at;
    JSON.parse(utf8.decode(bytes.subarray(bodyAt, bodyAt + length)));
    answer();
    at = bodyAt + length;
  }
}

/** The floor of a JavaScript engine over `Deno.listen`. */
function listenEngine(): { port: number; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serve = async (conn: Deno.Conn) => {
    const buffer = new Uint8Array(64 * 1024);
    let filled = 0;
    const answers: Uint8Array[] = [];
    try {
      for (;;) {
        const n = await conn.read(buffer.subarray(filled));
        if (n === null) return;
        filled += n;
        const used = serveWhole(buffer, filled, () => answers.push(answerBytes()));
        buffer.copyWithin(0, used, filled);
        filled -= used;
        for (const bytes of answers.splice(0)) await conn.write(bytes);
      }
    } catch {
      // the client went away
    } finally {
      conn.close();
    }
  };
  (async () => {
    for await (const conn of listener) void serve(conn);
  })().catch(() => {});
  return { port: listener.addr.port, close: () => listener.close() };
}

/** The floor of a JavaScript engine over `node:net`. */
async function nodeEngine(): Promise<{ port: number; close(): void }> {
  const server = createServer((socket: Socket) => {
    let pending = new Uint8Array(0);
    socket.on("data", (chunk: Uint8Array) => {
      const bytes = pending.length === 0 ? chunk : new Uint8Array([...pending, ...chunk]);
      const used = serveWhole(bytes, bytes.length, () => socket.write(answerBytes()));
      pending = bytes.slice(used);
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    close: () => server.close(),
  };
}

const denoServe = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  await req.json();
  return Response.json(JSON.parse(ANSWER));
});
const engines = {
  "Deno.serve": { port: denoServe.addr.port, close: () => void denoServe.shutdown() },
  "Deno.listen, JavaScript HTTP": listenEngine(),
  "node:net, JavaScript HTTP": await nodeEngine(),
};
type Engine = keyof typeof engines;
const BODY = JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] });

const urlOf = (name: Engine) => `http://127.0.0.1:${engines[name].port}/`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const loadAverage = () => Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
const names = Object.keys(engines) as Engine[];
const runs = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Engine, number[]>;
console.log(`load average ${loadAverage()} at the start`);
for (const name of names) await postLoad(urlOf(name), BODY, 32, 1); // warm up
for (let round = 0; round < Number(values.rounds); round++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length]!; // each engine in each place in turn
    const before = threadCpuMicros();
    const requests = await postLoad(urlOf(name), BODY, 32, values.seconds!);
    runs[name].push((threadCpuMicros() - before) / requests);
  }
}
console.log("| engine | CPU us a request (median) | over Deno.serve's, paired (median, range) |");
console.log("| --- | ---: | ---: |");
for (const name of names) {
  const ratios = runs[name].map((x, i) => x / runs["Deno.serve"][i]!);
  const range = `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
  console.log(
    `| ${name} | ${median(runs[name]).toFixed(1)} | ${median(ratios).toFixed(2)} (${range}) |`,
  );
}
console.log(`load average ${loadAverage()} at the end`);
for (const engine of Object.values(engines)) engine.close();

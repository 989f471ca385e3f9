/**
 * The evidence for docs/load.md, "No public API keeps the budgets": what Deno's public HTTP
 * servers do with the connections the reliability probes open, and their CPU per request. Not a
 * part of `deno task bench`; run it by hand on a new Deno:
 * `deno run -A bench/public_http_probe.ts`. Each server runs in its own process (this file with
 * `--serve deno|node|node-web BODYFILE`): `Deno.serve`; `node:http`; `node:http` adapted to a web
 * `Request`/`Response` handler, as Cueport's routes would need it.
 * @module
 */
import http from "node:http";
import { Buffer } from "node:buffer";
import { firstLine } from "../tools/first_line.ts";
import { formatRatio, pairedRatio } from "./_stats.ts";

const KINDS = ["deno", "node", "node-web"] as const;
type Kind = typeof KINDS[number];

/** Serves `body` (a file) on a free loopback port with `kind`; prints the port. */
async function serve(kind: Kind, bodyFile: string, maxConnections: number): Promise<void> {
  const body = await Deno.readTextFile(bodyFile);
  const web = async (req: Request) => {
    if (req.method === "POST") await req.text();
    return new Response(body, { headers: { "content-type": "application/json" } });
  };
  if (kind === "deno") {
    Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(port) }, web);
    return;
  }
  const server = http.createServer(
    { connectionsCheckingInterval: 200 } as http.ServerOptions,
    async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      if (kind === "node") {
        res.writeHead(200, { "content-type": "application/json" }).end(body);
        return;
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const response = await web(
        new Request(`http://${req.headers.host}${req.url}`, {
          method: req.method!,
          headers: req.headers as Record<string, string>,
          ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
        }),
      );
      const bytes = new Uint8Array(await response.arrayBuffer());
      res.writeHead(response.status, Object.fromEntries(response.headers)).end(bytes);
    },
  );
  Object.assign(server, { headersTimeout: 1000, requestTimeout: 1500, keepAliveTimeout: 1000 });
  server.maxConnections = maxConnections;
  server.listen(0, "127.0.0.1", () => console.log((server.address() as { port: number }).port));
}

/** A raw client sending `text`: how long until the server closes it (null: open at `waitMs`). */
async function closedAfter(port: number, text: string, waitMs: number): Promise<number | null> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  if (text) await conn.write(new TextEncoder().encode(text));
  const started = performance.now();
  const buf = new Uint8Array(4096);
  const closed = (async () => {
    try {
      while (await conn.read(buf) !== null) { /* answers */ }
    } catch { /* reset */ }
    return performance.now() - started;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = new Promise<null>((r) => timer = setTimeout(() => r(null), waitMs));
  const ms = await Promise.race([closed, open]);
  clearTimeout(timer);
  if (ms === null) conn.close();
  return ms;
}

/** Starts one server process (node's capped at `maxConnections`); its port and process. */
async function start(kind: Kind, bodyFile: string, maxConnections = 100) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      ...["run", "-A", new URL(import.meta.url).pathname],
      ...["--serve", kind, bodyFile, String(maxConnections)],
    ],
    stdout: "piped",
  }).spawn();
  return { kind, child, port: Number((await firstLine(child.stdout)).trim()) };
}

/** Silent, half-sent and kept-alive connections, and a third when 2 are open (node caps at 2). */
async function deadlines(kind: Kind, bodyFile: string): Promise<void> {
  const server = await start(kind, bodyFile);
  const show = (ms: number | null, waited = 5000) =>
    ms === null ? `open after ${waited} ms` : `closed at ${ms.toFixed(0)} ms`;
  const [silent, half, alive] = await Promise.all([
    closedAfter(server.port, "", 5000),
    closedAfter(server.port, "GET / HTTP/1.1\r\nHost: x\r\n", 5000),
    closedAfter(server.port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 5000),
  ]);
  console.log(
    `${kind}: silent ${show(silent)}, half-sent head ${show(half)}, ` +
      `keep-alive after an answer ${show(alive)}`,
  );
  server.child.kill();
  await server.child.status;
  // The cap: a server told 2 connections at most, a third opened while 2 silent ones are held.
  const capped = await start(kind, bodyFile, 2);
  const port = capped.port;
  const held = await Promise.all([0, 1].map(() => Deno.connect({ hostname: "127.0.0.1", port })));
  const third = await closedAfter(port, "", 500);
  console.log(`${kind}: capped at 2, a third connection: ${show(third, 500)}`);
  held.forEach((c) => c.close());
  capped.child.kill();
  await capped.child.status;
}

/** CPU (us) the process has used, from /proc (Linux). */
function cpuMicros(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** `rounds` rounds of each server under bench/load.ts (32 connections, 3 s), back to back. */
async function cpuPerRequest(bodyFile: string, method: string, rounds: number): Promise<void> {
  const servers = await Promise.all(KINDS.map((k) => start(k, bodyFile)));
  const load = async (port: number, seconds: number) => {
    const body = method === "POST" ? JSON.stringify({ name: "SET_CONTROL", params: ["A", 1] }) : "";
    const args = ["run", "--allow-net", new URL("./load.ts", import.meta.url).pathname];
    const url = `http://127.0.0.1:${port}/`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [...args, url, method, body, "32", String(seconds)],
    }).output();
    return JSON.parse(new TextDecoder().decode(out.stdout));
  };
  for (const s of servers) await load(s.port, 1);
  const cpu: Record<Kind, number[]> = { deno: [], node: [], "node-web": [] };
  const rps: Record<Kind, number[]> = { deno: [], node: [], "node-web": [] };
  for (let round = 0; round < rounds; round++) {
    for (const s of servers) {
      const before = cpuMicros(s.child.pid);
      const r = await load(s.port, 3);
      cpu[s.kind].push((cpuMicros(s.child.pid) - before) / r.requests);
      rps[s.kind].push(r.rps);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toFixed(0);
  for (const kind of KINDS) {
    const ratio = pairedRatio(rps[kind].map((r, i) => ({ baseline: rps.deno[i]!, measured: r })));
    console.log(
      `${method} ${kind}: ${median(cpu[kind])} us CPU/request (median of ${rounds}), ` +
        `req/s over Deno.serve's ${formatRatio(ratio)}`,
    );
  }
  for (const s of servers) s.child.kill();
  await Promise.all(servers.map((s) => s.child.status));
}

if (Deno.args[0] === "--serve") {
  await serve(Deno.args[1] as Kind, Deno.args[2]!, Number(Deno.args[3]));
} else if (import.meta.main) {
  console.log(`Deno ${Deno.version.deno}`);
  const dir = await Deno.makeTempDir({ prefix: "cueport-http-probe-" });
  const bodyFile = `${dir}/body.json`;
  await Deno.writeTextFile(bodyFile, JSON.stringify({ pad: "x".repeat(9_000) }));
  for (const kind of KINDS) await deadlines(kind, bodyFile);
  for (const method of ["GET", "POST"]) await cpuPerRequest(bodyFile, method, 4);
  await Deno.remove(dir, { recursive: true });
}

/**
 * The MCP part of `deno task bench`: the round trip of one `tools/call`
 * (`app_control` SET_CONTROL) beside `POST /api/v1/action` (SET_CONTROL) in
 * the same run, one request at a time from one client, in interleaved rounds
 * (the median of each round's p50 and p99; the ratio to the action paired per round: each
 * round's p50 over the action's p50 of that round, their median and range). The tool call is
 * measured twice:
 * as raw HTTP (what the service costs) and through the MCP SDK's client
 * (what an assistant sees, its own parsing and output validation included).
 * Target: the tool call's p50 at most 3 times the action's.
 * @module
 */
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startCueport } from "./_cueport.ts";
import { formatRatio, pairedRatio } from "./_stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    requests: { type: "string", default: "1000" },
    rounds: { type: "string", default: "5" },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const here = (path: string) => new URL(path, import.meta.url).pathname;

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const median = (xs: number[]) => pct(xs, 0.5);

/** Times `n` sequential calls of `once`; returns p50 and p99 in ms. */
async function measure(n: number, once: (i: number) => Promise<void>) {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await once(i);
    times.push(performance.now() - t);
  }
  return { p50: pct(times, 0.5), p99: pct(times, 0.99) };
}

const dataDir = await Deno.makeTempDir({ prefix: "cueport-mcpbench-" });
const cueport = await startCueport(dataDir);
const base = `http://127.0.0.1:${cueport.ports.http}`;
const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

async function expectOk(res: Response): Promise<unknown> {
  const body = await res.json();
  if (!res.ok || (body as { result?: { isError?: boolean } }).result?.isError) {
    throw new Error(`Unexpected answer ${res.status}: ${JSON.stringify(body)}`);
  }
  return body;
}

const results: Record<string, { p50: number[]; p99: number[] }> = {
  action: { p50: [], p99: [] },
  toolRaw: { p50: [], p99: [] },
  toolSdk: { p50: [], p99: [] },
};

try {
  // A raw MCP session (JSON answers, as the service gives them).
  const init = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: MCP_HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    }),
  });
  await init.body?.cancel();
  const session = {
    ...MCP_HEADERS,
    "mcp-session-id": init.headers.get("mcp-session-id")!,
    "mcp-protocol-version": "2025-06-18",
  };
  await (await fetch(`${base}/mcp`, {
    method: "POST",
    headers: session,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  })).body?.cancel();

  const sdk = new Client({ name: "bench", version: "1" });
  await sdk.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  await sdk.listTools(); // the client validates each answer against the output schema it lists

  const action = (i: number) =>
    fetch(`${base}/api/v1/action`, {
      method: "POST",
      body: JSON.stringify({ name: "SET_CONTROL", params: ["A", (i % 100) / 100] }),
    }).then(expectOk).then(() => {});
  const toolRaw = (i: number) =>
    fetch(`${base}/mcp`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/call",
        params: {
          name: "app_control",
          arguments: { action: "SET_CONTROL", controlID: "A", value: (i % 100) / 100 },
        },
      }),
    }).then(expectOk).then(() => {});
  const toolSdk = async (i: number) => {
    const result = await sdk.callTool({
      name: "app_control",
      arguments: { action: "SET_CONTROL", controlID: "A", value: (i % 100) / 100 },
    });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  };
  // Warm-up: JIT and connections.
  for (const run of [action, toolRaw, toolSdk]) await measure(200, run);
  for (let round = 0; round < ROUNDS; round++) {
    for (
      const [name, run] of [["action", action], ["toolRaw", toolRaw], ["toolSdk", toolSdk]] as const
    ) {
      const m = await measure(REQUESTS, run);
      results[name]!.p50.push(m.p50);
      results[name]!.p99.push(m.p99);
    }
  }
  await sdk.close();
} finally {
  await cueport.stop();
  await Deno.remove(dataDir, { recursive: true });
}

const row = (name: string) => ({
  p50: median(results[name]!.p50),
  p99: median(results[name]!.p99),
  // Paired per round: this round's p50 over the action's p50 of the same round.
  ratio: pairedRatio(
    results[name]!.p50.map((p50, i) => ({ baseline: results.action!.p50[i]!, measured: p50 })),
  ),
});
const rows = [
  { name: "POST /api/v1/action SET_CONTROL", ...row("action") },
  { name: "MCP tools/call app_control (raw HTTP)", ...row("toolRaw") },
  { name: "MCP tools/call app_control (SDK client)", ...row("toolSdk") },
];

console.log(
  `\nCueport MCP benchmark (loopback, one request at a time, ${ROUNDS} rounds of ${REQUESTS}; ` +
    "figures: median over the rounds; ratio: each round's p50 over the action's p50 of the same " +
    "round, median (min-max))\n",
);
console.log("| request | p50 ms | p99 ms | p50 / action p50 | target |");
console.log("| --- | --- | --- | --- | --- |");
for (const r of rows) {
  console.log(
    `| ${r.name} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${formatRatio(r.ratio)} | ${
      r.name.startsWith("MCP") ? "<= 3" : ""
    } |`,
  );
}
await Deno.mkdir(here("./results"), { recursive: true });
const file = here(`./results/mcp-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
await Deno.writeTextFile(
  file,
  JSON.stringify(
    { at: new Date().toISOString(), requests: REQUESTS, rounds: ROUNDS, rows },
    null,
    2,
  ) +
    "\n",
);
console.log(`\nwritten to ${file}`);

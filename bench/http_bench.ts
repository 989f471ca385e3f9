/**
 * `deno task bench`: Cueport and a bare Deno.serve baseline (`baseline.ts`), started side by side
 * in one run on loopback, driven by the same load (wrk when installed, else bench/load.ts). Each
 * Cueport row names the baseline rows it is compared with, each doing the same work on the same
 * bytes at the same connection count (docs/load.md, "Baselines and paired ratios"); in every
 * round a row's baselines and the row run back to back, and each ratio is the median of the
 * per-round ratios, with their range. Results are also written as JSON under bench/results/.
 * @module
 */
import { parseArgs } from "node:util";
import { startCueport } from "./_cueport.ts";
import { capture, captureAction, type Captured, startBaseline } from "./_baseline.ts";
import { formatRatio, type PairedRatio, pairedRatio } from "./_stats.ts";
import { createDemoProject } from "../player/demo.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import { bigProject } from "./big_project.ts";
import { missingPeer } from "./_peers.ts";
import { builtInLoad, wrkLoad } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "3" },
    connections: { type: "string", default: "32" },
    // Five: on a shared VM one round's ratio ranges 0.6-1.3 (docs/load.md, Session 21); a median
    // of three is one unlucky pair away from the gate.
    rounds: { type: "string", default: "5" },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const here = (path: string) => new URL(path, import.meta.url).pathname;

interface Result {
  /** CPU us per request in the service and in its player (Linux), when measured. */
  cpuUs?: { service: number; player: number };
  name: string;
  rps: number;
  /** Requests answered in the run (the CPU per request divides by it). */
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  connections: number;
}

/** One run of the load, by wrk when installed, else by the built-in generator. */
async function load(
  url: string,
  method: string,
  body: string,
  connections: number,
  seconds = SECONDS,
): Promise<Omit<Result, "name">> {
  const run = hasWrk ? wrkLoad : builtInLoad;
  return { ...(await run({ url, method, body, connections, seconds })), connections };
}

const hasWrk = missingPeer("wrk") === null;

/** One load: what is requested, and how hard. */
interface Scenario {
  name: string;
  url: string;
  method?: string;
  body?: string;
  connections: number;
}

/** A Cueport row and what it is compared with: each baseline row, and what the ratio says. */
interface Compared extends Scenario {
  against: Array<{ ratio: string; baseline: Scenario }>;
}

/** The action row's body; its baselines answer it with Cueport's very bytes. */
const ACTION = JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] });

/** The paths of the GET rows, under `/api/v1/`. */
const GETS = ["app-state", "projects/demo", "projects/big"] as const;

/** The Cueport rows, each with its baseline rows: same work, same bytes, same connections. */
function comparedRows(api: string, bare: string, answers: Record<string, Captured>): Compared[] {
  const sizes = GETS.map((p) => answers[`/api/v1/${p}`]!.bytes.length.toLocaleString("en"));
  const get = (path: string, what: string, connections: number) => ({
    name: `GET /api/v1/${path}`,
    url: `${api}/api/v1/${path}`,
    connections,
    against: [{
      ratio: "to the same bytes",
      baseline: {
        name: `bare Deno.serve, the same bytes as ${what}`,
        url: `${bare}/api/v1/${path}`,
        connections,
      },
    }],
  });
  const post = (name: string, url: string) => ({
    name,
    url,
    method: "POST",
    body: ACTION,
    connections: CONNECTIONS,
  });
  return [
    get("app-state", `app-state (${sizes[0]} B)`, CONNECTIONS),
    get("projects/demo", `the demo project (${sizes[1]} B)`, CONNECTIONS),
    get("projects/big", `the 10,000-Clip project (${sizes[2]} B)`, 4),
    {
      ...post("POST /api/v1/action SET_CONTROL", `${api}/api/v1/action`),
      against: [
        {
          ratio: "to the same work (read the JSON body, answer the same bytes)",
          baseline: post("bare Deno.serve, POST reading a JSON body", `${bare}/`),
        },
        {
          ratio: "to the design's limit",
          baseline: post(
            "bare Deno.serve, POST relayed to a bare child over stdio (the design's limit)",
            `${bare}/relay`,
          ),
        },
      ],
    },
  ];
}

/** What Cueport answers each GET row, by path: the bytes its baseline will send. */
async function captureGets(api: string): Promise<Record<string, Captured>> {
  const answers: Record<string, Captured> = {};
  for (const path of GETS) answers[`/api/v1/${path}`] = await capture(`${api}/api/v1/${path}`);
  return answers;
}

/** One run of `s`; with the CPU Cueport and its player spent per request when `cpu` reads it. */
async function runOnce(
  s: Scenario,
  cpu: (() => { service: number; player: number } | null) | null,
): Promise<Result> {
  const before = cpu?.();
  const run = await load(s.url, s.method ?? "GET", s.body ?? "", s.connections);
  const after = cpu?.();
  // The requests counted, not req/s x seconds: the run ends when its last answers are in.
  const requests = run.requests;
  const cpuUs = before && after
    ? {
      service: (after.service - before.service) / requests,
      player: (after.player - before.player) / requests,
    }
    : undefined;
  return { name: s.name, ...run, ...(cpuUs ? { cpuUs } : {}) };
}

/** The median of each figure of one row's runs (one a round), errors summed. */
function medianRow(runs: Result[]): Result {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const cpu = runs.every((r) => r.cpuUs)
    ? {
      cpuUs: {
        service: median(runs.map((r) => r.cpuUs!.service)),
        player: median(runs.map((r) => r.cpuUs!.player)),
      },
    }
    : {};
  return {
    ...runs[0]!,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    ...cpu,
  };
}

/** CPU time (us) so far of a row's two processes: Cueport's service and player, or a bare server and its child. */
type CpuReader = () => { service: number; player: number } | null;

/** Every round runs each row's baselines and then the row, back to back; each run, by name. */
async function runRounds(
  rows: Compared[],
  cpu: { cueport: CpuReader; baseline: CpuReader },
): Promise<Map<string, Result[]>> {
  const runs = new Map<string, Result[]>();
  const record = (r: Result) => runs.set(r.name, [...(runs.get(r.name) ?? []), r]);
  for (const row of rows) {
    // Warm up (JIT, caches) with a short run of the same load.
    for (const s of [...row.against.map((a) => a.baseline), row]) {
      await load(s.url, s.method ?? "GET", s.body ?? "", s.connections, 1);
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const row of rows) {
      for (const { baseline } of row.against) record(await runOnce(baseline, cpu.baseline));
      record(await runOnce(row, cpu.cueport));
    }
  }
  return runs;
}

/** One comparison: a Cueport row, its baseline row, and the ratios paired per round. */
interface RatioRow {
  row: string;
  baseline: string;
  ratio: string;
  /** req/s of the row over its baseline's. */
  paired: PairedRatio;
  /** CPU per request of the row (service + player) over its baseline's (server + child). */
  cpu: PairedRatio | null;
}

/** A run's CPU per request, both processes, when measured. */
const cpuTotal = (r: Result) => r.cpuUs && r.cpuUs.service + r.cpuUs.player;

/** The paired ratios of every comparison: each round's row figure over its baseline's. */
function ratios(rows: Compared[], runs: Map<string, Result[]>): RatioRow[] {
  return rows.flatMap((row) =>
    row.against.map(({ ratio, baseline }) => {
      const base = runs.get(baseline.name)!;
      const measured = runs.get(row.name)!;
      const paired = pairedRatio(
        measured.map((r, i) => ({ baseline: base[i]!.rps, measured: r.rps })),
      );
      const hasCpu = [...base, ...measured].every((r) => (cpuTotal(r) ?? 0) > 0);
      const cpu = hasCpu
        ? pairedRatio(
          measured.map((r, i) => ({ baseline: cpuTotal(base[i]!)!, measured: cpuTotal(r)! })),
        )
        : null;
      return { row: row.name, baseline: baseline.name, ratio, paired, cpu };
    })
  );
}

/** Prints the runs (medians over the rounds) and the paired ratios, as Markdown tables. */
function print(rows: Compared[], runs: Map<string, Result[]>, table: RatioRow[]): void {
  console.log(
    `\nCueport HTTP benchmark (${
      hasWrk ? "wrk" : `built-in load generator: ${missingPeer("wrk")}`
    }, ${ROUNDS} rounds of ${SECONDS} s, loopback; each row's baselines run just before it)\n`,
  );
  console.log(
    "| row | compared with | conns | req/s | p50 ms | p99 ms | CPU us/request (service + player; a baseline: bare server + bare child) | errors |",
  );
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const row of rows) {
    for (const s of [...row.against.map((a) => a.baseline), row]) {
      const r = medianRow(runs.get(s.name)!);
      const names = s === row ? row.against.map((a) => a.baseline.name).join("; ") : "";
      const cpu = r.cpuUs ? `${r.cpuUs.service.toFixed(0)} + ${r.cpuUs.player.toFixed(0)}` : "";
      console.log(
        `| ${s.name} | ${names} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${
          r.p99.toFixed(2)
        } | ${cpu} | ${r.errors} |`,
      );
    }
  }
  console.log(
    `\nRatios, paired per round (req/s of the row over its baseline's in the same round): ` +
      `median of ${ROUNDS} rounds (min-max)\n`,
  );
  console.log("| row | ratio | baseline row | median (min-max) |\n| --- | --- | --- | ---: |");
  for (const t of table) {
    console.log(`| ${t.row} | ${t.ratio} | ${t.baseline} | ${formatRatio(t.paired)} |`);
  }
  const cpuRows = table.filter((t) => t.cpu !== null);
  if (cpuRows.length === 0) return;
  console.log(
    `\nCPU per request, paired per round (the row's, service + player, over its baseline's, ` +
      `bare server + bare child, in the same round): median of ${ROUNDS} rounds (min-max)\n`,
  );
  console.log("| row | ratio | baseline row | median (min-max) |\n| --- | --- | --- | ---: |");
  for (const t of cpuRows) {
    console.log(`| ${t.row} | ${t.ratio} | ${t.baseline} | ${formatRatio(t.cpu!)} |`);
  }
}

const dataDir = await Deno.makeTempDir({ prefix: "cueport-bench-" });
await writeJsonAtomic(
  `${dataDir}/projects/demo/project.json`,
  await createDemoProject(`${dataDir}/projects/demo`),
);
await writeJsonAtomic(`${dataDir}/projects/big/project.json`, bigProject());

const cueport = await startCueport(dataDir);
const api = `http://127.0.0.1:${cueport.ports.http}`;
const answers = await captureGets(api);
const bare = await startBaseline(answers, await captureAction(`${api}/api/v1/action`, ACTION));
const rows = comparedRows(api, bare.url, answers);
let runs: Map<string, Result[]>;
try {
  runs = await runRounds(rows, { cueport: () => cueport.cpu(), baseline: () => bare.cpu() });
} finally {
  await Promise.all([bare.stop(), cueport.stop()]);
  await Deno.remove(dataDir, { recursive: true });
}
const table = ratios(rows, runs);
print(rows, runs, table);

await Deno.mkdir(here("./results"), { recursive: true });
const file = here(`./results/http-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
await Deno.writeTextFile(
  file,
  JSON.stringify(
    {
      at: new Date().toISOString(),
      tool: hasWrk ? "wrk" : "built-in",
      seconds: SECONDS,
      rounds: ROUNDS,
      runs: Object.fromEntries(runs),
      ratios: table,
    },
    null,
    2,
  ) + "\n",
);
console.log(`\nwritten to ${file}`);

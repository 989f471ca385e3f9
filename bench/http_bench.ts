/**
 * `deno task bench`: a bare Deno.serve baseline and Cueport, started side by
 * side in one run on loopback, driven by the same load (wrk when installed,
 * else bench/load.ts), reported as ratios to the baseline. Results are also
 * written as JSON under bench/results/.
 * @module
 */
import { parseArgs } from "node:util";
import { startCueport } from "./_cueport.ts";
import { firstLine } from "../tools/first_line.ts";
import { createDemoProject } from "../player/demo.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import { bigProject } from "./big_project.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "3" },
    connections: { type: "string", default: "32" },
    rounds: { type: "string", default: "3" },
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
  p50: number;
  p99: number;
  errors: number;
  connections: number;
}

function hasWrk(): boolean {
  try {
    new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync();
    return true;
  } catch {
    return false;
  }
}

const toMs = (value: string, unit: string) =>
  Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);

async function wrk(
  url: string,
  method: string,
  body: string,
  connections: number,
  seconds = SECONDS,
): Promise<Omit<Result, "name">> {
  const args = ["-t", "1", "-c", String(connections), "-d", `${seconds}s`, "--latency"];
  let script: string | undefined;
  if (method === "POST") {
    script = await Deno.makeTempFile({ suffix: ".lua" });
    await Deno.writeTextFile(
      script,
      `wrk.method = "POST"\nwrk.body = ${
        JSON.stringify(body)
      }\nwrk.headers["Content-Type"] = "application/json"\n`,
    );
    args.push("-s", script);
  }
  const out = new TextDecoder().decode(
    (await new Deno.Command("wrk", { args: [...args, url] }).output()).stdout,
  );
  if (script) await Deno.remove(script);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const p = (q: string) => {
    const m = new RegExp(`\\s${q}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m ? toMs(m[1]!, m[2]!) : NaN;
  };
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return { rps, p50: p("50"), p99: p("99"), errors, connections };
}

async function builtIn(
  url: string,
  method: string,
  body: string,
  connections: number,
  seconds = SECONDS,
): Promise<Omit<Result, "name">> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      here("./load.ts"),
      url,
      method,
      body,
      String(connections),
      String(seconds),
    ],
  }).output();
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  return { rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, connections };
}

const dataDir = await Deno.makeTempDir({ prefix: "cueport-bench-" });
await writeJsonAtomic(
  `${dataDir}/projects/demo/project.json`,
  await createDemoProject(`${dataDir}/projects/demo`),
);
await writeJsonAtomic(`${dataDir}/projects/big/project.json`, bigProject());

const cueport = await startCueport(dataDir);
const ready = { ports: cueport.ports };
const api = `http://127.0.0.1:${ready.ports.http}`;
const demoBody = await Deno.makeTempFile({ suffix: ".json" });
await Deno.writeFile(
  demoBody,
  new Uint8Array(await (await fetch(`${api}/api/v1/projects/demo`)).arrayBuffer()),
);
const baseline = new Deno.Command(Deno.execPath(), {
  args: ["run", "--allow-net", "--allow-read", "--allow-run", here("./baseline.ts"), demoBody],
  stdout: "piped",
}).spawn();
const baselineUrl = `http://127.0.0.1:${JSON.parse(await firstLine(baseline.stdout)).port}`;

const load = hasWrk() ? wrk : builtIn;
const scenarios: Array<
  { name: string; url: string; method?: string; body?: string; connections?: number }
> = [
  { name: "baseline Deno.serve", url: `${baselineUrl}/` },
  { name: "baseline Deno.serve, demo-sized body", url: `${baselineUrl}/file` },
  {
    name: "baseline Deno.serve, POST reading a JSON body",
    url: `${baselineUrl}/`,
    method: "POST",
    body: JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] }),
  },
  {
    name: "baseline Deno.serve, POST relayed to a child process over stdio (the design's limit)",
    url: `${baselineUrl}/relay`,
    method: "POST",
    body: JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] }),
  },
  { name: "GET /api/v1/app-state", url: `${api}/api/v1/app-state` },
  { name: "GET /api/v1/projects/demo", url: `${api}/api/v1/projects/demo` },
  {
    name: "GET /api/v1/projects/big (10,000 clips)",
    url: `${api}/api/v1/projects/big`,
    connections: 4,
  },
  {
    name: "POST /api/v1/action SET_CONTROL",
    url: `${api}/api/v1/action`,
    method: "POST",
    body: JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] }),
  },
];

// Rounds interleave every scenario, so drift on a shared machine hits baseline and
// scenarios alike; each figure is the median over the rounds.
const samples: Result[][] = scenarios.map(() => []);
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
let results: Result[] = [];
try {
  for (const s of scenarios) {
    // Warm up (JIT, caches) with a short run of the same load.
    await load(s.url, s.method ?? "GET", s.body ?? "", s.connections ?? CONNECTIONS, 1);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, s] of scenarios.entries()) {
      const before = cueport.cpu();
      const run = await load(s.url, s.method ?? "GET", s.body ?? "", s.connections ?? CONNECTIONS);
      const after = cueport.cpu();
      const requests = run.rps * SECONDS;
      const cpuUs = before && after && !s.name.startsWith("baseline")
        ? {
          service: (after.service - before.service) / requests,
          player: (after.player - before.player) / requests,
        }
        : undefined;
      samples[i]!.push({ name: s.name, ...run, ...(cpuUs ? { cpuUs } : {}) });
    }
  }
  results = samples.map((runs) => ({
    ...runs[0]!,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    ...(runs[0]!.cpuUs
      ? {
        cpuUs: {
          service: median(runs.map((r) => r.cpuUs!.service)),
          player: median(runs.map((r) => r.cpuUs!.player)),
        },
      }
      : {}),
  }));
} finally {
  baseline.kill();
  await Promise.all([baseline.status, cueport.stop()]);
  await Deno.remove(dataDir, { recursive: true });
  await Deno.remove(demoBody);
}

const base = results[0]!.rps;
const sameBody = results[1]!.rps;
const samePost = results[2]!.rps;
const designLimit = results[3]!.rps;
const rows = results.map((r) => ({
  ...r,
  ratio: r.rps / base,
  ...(r.name.includes("projects/demo") ? { ratioSameWork: r.rps / sameBody } : {}),
  ...(r.name.startsWith("POST /api") ? { ratioSameWork: r.rps / samePost } : {}),
  ...(r.name.startsWith("POST /api") ? { ratioDesignLimit: r.rps / designLimit } : {}),
}));
console.log(
  `\nCueport HTTP benchmark (${
    load === wrk ? "wrk" : "built-in load generator"
  }, median of ${ROUNDS} rounds of ${SECONDS} s, loopback)\n`,
);
console.log(
  "| scenario | conns | req/s | p50 ms | p99 ms | ratio to baseline | ratio to same-work baseline | ratio to the design's limit | CPU us/request (service + player) | errors |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  console.log(
    `| ${r.name} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${
      r.p99.toFixed(2)
    } | ${r.ratio.toFixed(2)} | ${r.ratioSameWork?.toFixed(2) ?? ""} | ${
      r.ratioDesignLimit?.toFixed(2) ?? ""
    } | ${
      r.cpuUs ? `${r.cpuUs.service.toFixed(0)} + ${r.cpuUs.player.toFixed(0)}` : ""
    } | ${r.errors} |`,
  );
}
await Deno.mkdir(here("./results"), { recursive: true });
const file = here(`./results/http-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
await Deno.writeTextFile(
  file,
  JSON.stringify(
    {
      at: new Date().toISOString(),
      tool: load === wrk ? "wrk" : "built-in",
      seconds: SECONDS,
      results: rows,
    },
    null,
    2,
  ) + "\n",
);
console.log(`\nwritten to ${file}`);

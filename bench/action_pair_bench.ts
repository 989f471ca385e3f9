/**
 * Paired before/after of the action's CPU: `POST /api/v1/action` `SET_CONTROL` on two checkouts
 * of Cueport (each started by its own `bench/_cueport.ts`) and on the design's limit (this
 * checkout's bare relay, `bench/_baseline.ts`), run back to back in each round, each in each place
 * in turn (`orderOf`). Prints each row's CPU per request (service + player) and, paired per round,
 * the differences to `before` and the action's ratios to each limit: its requests a second and its
 * CPU per request over the limit's (docs/load.md, "Where the action's CPU goes").
 *
 * `deno run -A bench/action_pair_bench.ts --before /work/main --rounds 7`; `--old-limit <dir>` adds
 * the limit as an older revision made it (`dir` holding that revision's `bench/baseline.ts` and
 * `bench/baseline_child.ts`, written by `git show`), the yardstick an older figure was taken with.
 * @module
 */
import { parseArgs } from "node:util";
import { captureAction, startBaseline } from "./_baseline.ts";
import { postLoad } from "./_measure.ts";
import { formatRatio, pairedRatio } from "./_stats.ts";
import type { BenchService } from "./_cueport.ts";
import { createDemoProject } from "../player/demo.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    before: { type: "string" },
    "old-limit": { type: "string" },
    seconds: { type: "string", default: "3" },
    connections: { type: "string", default: "32" },
    rounds: { type: "string", default: "7" },
  },
});
const here = (path: string) => new URL(path, import.meta.url).pathname;
const BODY = JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] });

/** A Cueport of the checkout at `root`, on a fresh data dir holding the demo project. */
async function start(root: string): Promise<{ service: BenchService; dataDir: string }> {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-pair-" });
  await writeJsonAtomic(
    `${dataDir}/projects/demo/project.json`,
    await createDemoProject(`${dataDir}/projects/demo`),
  );
  const { startCueport } = await import(`${root}/bench/_cueport.ts`);
  return { service: await startCueport(dataDir), dataDir };
}

type Cpu = () => { service: number; player: number } | null;
interface Row {
  name: string;
  url: string;
  cpu: Cpu;
}

/** One run's figures: CPU us a request of both processes, and requests a second. */
interface Figures {
  service: number;
  player: number;
  rps: number;
}

/** One run of `row`. */
async function run(row: Row): Promise<Figures> {
  const before = row.cpu()!;
  const requests = await postLoad(row.url, BODY, values.connections!, values.seconds!);
  const after = row.cpu()!;
  return {
    service: (after.service - before.service) / requests,
    player: (after.player - before.player) / requests,
    rps: requests / Number(values.seconds),
  };
}

/** The order of `n` rows in `round`: turned by one a round, reversed every other round. */
function orderOf(round: number, n: number): number[] {
  const turned = Array.from({ length: n }, (_, i) => (i + round) % n);
  return round % 2 ? turned.reverse() : turned;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const after = await start(here(".."));
const before = values.before ? await start(values.before) : null;
const bare = await startBaseline(
  {},
  await captureAction(`http://127.0.0.1:${after.service.ports.http}/api/v1/action`, BODY),
);
const oldLimit = values["old-limit"]
  ? await startBaseline({}, undefined, `${values["old-limit"]}/baseline.ts`)
  : null;
const rows: Row[] = [
  ...(before
    ? [{
      name: "before",
      url: `http://127.0.0.1:${before.service.ports.http}/api/v1/action`,
      cpu: before.service.cpu,
    }]
    : []),
  {
    name: "after",
    url: `http://127.0.0.1:${after.service.ports.http}/api/v1/action`,
    cpu: after.service.cpu,
  },
  { name: "limit", url: `${bare.url}/relay`, cpu: bare.cpu },
  ...(oldLimit ? [{ name: "old limit", url: `${oldLimit.url}/relay`, cpu: oldLimit.cpu }] : []),
];
const results = new Map<string, Figures[]>();
try {
  for (const row of rows) await postLoad(row.url, BODY, values.connections!, 1); // warm up
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const row of orderOf(round, rows.length).map((i) => rows[i]!)) {
      const r = await run(row);
      results.set(row.name, [...(results.get(row.name) ?? []), r]);
    }
  }
} finally {
  await Promise.all([bare.stop(), oldLimit?.stop(), after.service.stop(), before?.service.stop()]);
  for (const s of [after, before]) if (s) await Deno.remove(s.dataDir, { recursive: true });
}
console.log("| row | service (median) | player (median) | each round's total |");
console.log("| --- | ---: | ---: | --- |");
for (const [name, rs] of results) {
  console.log(
    `| ${name} | ${median(rs.map((r) => r.service)).toFixed(1)} | ${
      median(rs.map((r) => r.player)).toFixed(1)
    } | ${rs.map((r) => (r.service + r.player).toFixed(0)).join(", ")} |`,
  );
}
if (before) {
  const b = results.get("before")!, a = results.get("after")!;
  const d = (f: (r: Figures) => number) => median(a.map((r, i) => f(r) - f(b[i]!))).toFixed(1);
  console.log(
    `\nafter - before, paired per round (median): service ${d((r) => r.service)}, player ${
      d((r) => r.player)
    }, total ${d((r) => r.service + r.player)}`,
  );
}
for (const row of ["after", "before"].filter((name) => results.has(name))) {
  const action = results.get(row)!;
  for (const limit of ["limit", "old limit"].filter((name) => results.has(name))) {
    const base = results.get(limit)!;
    const cpu = (r: Figures) => r.service + r.player;
    const rps = pairedRatio(action.map((r, i) => ({ baseline: base[i]!.rps, measured: r.rps })));
    const cpus = pairedRatio(
      action.map((r, i) => ({ baseline: cpu(base[i]!), measured: cpu(r) })),
    );
    console.log(
      `\n${row} / ${limit}, paired per round (median, range): requests a second ${
        formatRatio(rps)
      }, CPU a request ${formatRatio(cpus)}`,
    );
  }
}

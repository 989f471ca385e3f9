/**
 * `deno task bench` (last part): how fast Cueport is ready and how much
 * memory it holds. Ready time: from spawn to the ready line with the player
 * ready, against a bare `deno run` of a hello-world `Deno.serve` in the same
 * run (its listening line), interleaved rounds, medians; for a first start
 * (empty data dir: the demo project is made) and a restart (existing data dir).
 * Every start binds 127.0.0.1 only, with a free port for every listener and mDNS off
 * (`loopbackArgs()` of `_cueport.ts`), so it measures the same listeners as shipped without taking
 * the default ports or advertising on the network.
 * RSS (`ps -o rss=`, procps): the service and its player idle on the demo project, and
 * with the generated 10,000-Clip project open. `--rounds N` (default 7);
 * `--binary PATH` measures a compiled binary as well. Targets (issue 22): ready
 * under 400 ms, each RSS under 120 MB. Results also go to
 * `bench/results/startup-<time>.json`.
 * @module
 */
import { parseArgs } from "node:util";
import { SERVICE_FLAGS } from "../server/deploy/permissions.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import { bigProject } from "./big_project.ts";
import { missingPeer, rssMb } from "./_peers.ts";
import { loopbackArgs } from "./_cueport.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string" }, binary: { type: "string" } },
});
const ROUNDS = Number(values.rounds ?? 7);
const MAIN = new URL("../main.ts", import.meta.url).pathname;
/** Loopback only, a free port for every listener (the 5.0.0 ones too), no mDNS: `_cueport.ts`. */

const HELLO = `const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) =>
  console.log(JSON.stringify({ event: "ready", port })) }, () => new Response("hello"));
Deno.addSignalListener("SIGTERM", () => server.shutdown().then(() => Deno.exit(0)));`;

/** A started process, the ms until its first stdout line, and that line. */
async function startTimed(program: string, args: string[]) {
  const started = performance.now();
  const child = new Deno.Command(program, {
    args,
    stdout: "piped",
    stderr: "null",
    env: { RUST_BACKTRACE: "0" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${program} exited before its first line`);
    text += value;
  }
  const ms = performance.now() - started;
  reader.releaseLock();
  return { child, ms, line: JSON.parse(text.slice(0, text.indexOf("\n"))) };
}

async function stop(child: Deno.ChildProcess): Promise<void> {
  child.kill("SIGTERM");
  await child.status;
  await child.stdout.cancel().catch(() => {});
}

async function playerPid(servicePid: number): Promise<number | null> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "pid=,args=", "--ppid", String(servicePid)],
  })
    .output().catch(() => null);
  const line = out && new TextDecoder().decode(out.stdout).split("\n")
    .find((l) => /\splayer(\s|$)/.test(l));
  return line ? Number(line.trim().split(/\s+/)[0]) : null;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const ms = (n: number) => `${n.toFixed(0)} ms`;

const work = await Deno.makeTempDir({ prefix: "cueport-startup-bench-" });
const helloFile = `${work}/hello.ts`;
await Deno.writeTextFile(helloFile, HELLO);

/** The ways Cueport is started: from source, and the compiled binary if given. */
const cueports: Array<{ name: string; command: string[] }> = [
  { name: "cueport (deno run main.ts)", command: [Deno.execPath(), "run", ...SERVICE_FLAGS, MAIN] },
  ...(values.binary ? [{ name: `cueport (${values.binary})`, command: [values.binary] }] : []),
];

const times: Record<string, number[]> = { "hello world (deno run)": [] };
/** A data dir each way of starting has started once: a restart's. */
const warmDirs = new Map<string, string>();
for (const { name, command } of cueports) {
  times[`${name}, first start`] = [];
  times[`${name}, restart`] = [];
  const dataDir = await Deno.makeTempDir({ dir: work });
  const [program, ...args] = command;
  await stop(
    (await startTimed(program!, [...args, "--data-dir", dataDir, ...loopbackArgs()])).child,
  );
  warmDirs.set(name, dataDir);
}
for (let round = 0; round < ROUNDS; round++) {
  const hello = await startTimed(Deno.execPath(), ["run", "--allow-net=127.0.0.1", helloFile]);
  times["hello world (deno run)"]!.push(hello.ms);
  await stop(hello.child);
  for (const { name, command } of cueports) {
    for (const kind of ["first start", "restart"] as const) {
      const dataDir = kind === "restart"
        ? warmDirs.get(name)!
        : await Deno.makeTempDir({ dir: work });
      const [program, ...args] = command;
      const run = await startTimed(program!, [...args, "--data-dir", dataDir, ...loopbackArgs()]);
      if (!run.line.playerReady) throw new Error(`${name}: ready line without the player`);
      times[`${name}, ${kind}`]!.push(run.ms);
      await stop(run.child);
    }
  }
}

console.log(`\nReady time (median of ${ROUNDS} interleaved rounds; target: under 400 ms)`);
const readyRows = Object.entries(times).map(([name, list]) => ({
  name,
  medianMs: Math.round(median(list)),
  minMs: Math.round(Math.min(...list)),
  maxMs: Math.round(Math.max(...list)),
}));
for (const row of readyRows) {
  console.log(
    `  ${row.name.padEnd(48)} ${ms(row.medianMs).padStart(8)}  (${ms(row.minMs)} .. ${
      ms(row.maxMs)
    })`,
  );
}

// Memory: idle on the demo project; then on a data dir that also holds the 10,000-Clip project.
const memoryRows: Array<
  { name: string; state: string; serviceMb: number | null; playerMb: number | null }
> = [];
/** ps finds the player and reads both RSS figures: without it, one skipped row. */
const memorySkipped = missingPeer("ps");
for (const { name, command } of memorySkipped ? [] : cueports) {
  for (const state of ["idle, demo project", "idle, 10,000-Clip project"]) {
    const dataDir = await Deno.makeTempDir({ dir: work });
    if (state.includes("10,000")) {
      await writeJsonAtomic(`${dataDir}/projects/big/project.json`, bigProject());
    }
    const [program, ...args] = command;
    const run = await startTimed(program!, [...args, "--data-dir", dataDir, ...loopbackArgs()]);
    const base = `http://127.0.0.1:${run.line.ports.http}`;
    if (state.includes("10,000")) {
      // Read once, as a client would: the answer is built and sent.
      const big = await fetch(`${base}/api/v1/projects/big`);
      const body = await big.json();
      if (body.songs?.length !== 100) throw new Error(`the 10,000-Clip project: ${big.status}`);
    }
    const player = await playerPid(run.line.pid);
    // A second of quiet: start-up garbage collected, the player settled.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    memoryRows.push({
      name,
      state,
      serviceMb: await rssMb(run.line.pid),
      playerMb: player === null ? null : await rssMb(player),
    });
    await stop(run.child);
  }
}
console.log("\nResident memory (RSS; target: under 120 MB each)");
if (memorySkipped) console.log(`  skipped: ${memorySkipped}`);
for (const row of memoryRows) {
  const mb = (v: number | null) => v === null ? "n/a" : `${v} MB`;
  console.log(
    `  ${row.name.padEnd(30)} ${row.state.padEnd(26)} service ${
      mb(row.serviceMb).padStart(9)
    }  player ${mb(row.playerMb).padStart(9)}`,
  );
}

await Deno.remove(work, { recursive: true });
const resultsDir = new URL("./results/", import.meta.url);
await Deno.mkdir(resultsDir, { recursive: true });
const file = new URL(`startup-${new Date().toISOString().replaceAll(":", "-")}.json`, resultsDir);
await Deno.writeTextFile(
  file,
  JSON.stringify(
    { rounds: ROUNDS, ready: readyRows, memory: memoryRows, memorySkipped },
    null,
    2,
  ) + "\n",
);
console.log(`\nWritten to ${decodeURIComponent(file.pathname)}`);

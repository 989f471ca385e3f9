/**
 * The service's side of the player's pipe alone, no HTTP, no player: the CPU this process spends
 * per request line written with `LineTransport` over `streamPipe` to a bare child
 * (`baseline_child.ts`, which answers each line) and per answer line read back, `k` requests a
 * write, each write waiting for its answers. The pipe as it is (`kept`: `streamPipe`'s
 * `writeText`, one kept buffer) and without its `writeText` (`encode`: a new array a write, as
 * before `keptWriter`), each round in each place in turn; the paired per-round difference
 * (docs/load.md, "The service's side").
 *
 * `deno run -A bench/service_pipe_bench.ts --k 1,8 --writes 4000 --rounds 6`
 * @module
 */
import { parseArgs } from "node:util";
import { type BytePipe, LineTransport, streamPipe } from "../protocol/transport.ts";
import { threadCpuMicros } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    k: { type: "string", default: "1,8" },
    writes: { type: "string", default: "4000" },
    rounds: { type: "string", default: "6" },
  },
});

/** A bare child behind a `LineTransport`; `exchange` writes `k` requests and waits for the answers. */
class Side {
  readonly child: Deno.ChildProcess;
  readonly transport: LineTransport;
  #waiting = 0;
  #done: (() => void) | null = null;
  #nextId = 1;

  constructor(without: ReadonlyArray<"writeText">) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: ["run", new URL("./baseline_child.ts", import.meta.url).pathname],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const pipe: BytePipe = streamPipe(this.child.stdout, this.child.stdin);
    for (const part of without) delete pipe[part];
    this.transport = new LineTransport(pipe);
    // The bare child's answers carry no `jsonrpc` member: each is read and parsed as a player's
    // answer is, then refused as no JSON-RPC message; either way it is an answer read.
    const answered = () => {
      if (--this.#waiting === 0) this.#done?.();
    };
    this.transport.onmessage = answered;
    this.transport.onerror = answered;
    void this.transport.start();
  }

  exchange(k: number): Promise<void> {
    const messages = Array.from({ length: k }, () => ({
      jsonrpc: "2.0" as const,
      id: this.#nextId++,
      method: "action.run",
      params: { name: "SET_CONTROL", params: { controlID: "A", value: 0.5 }, projectId: null },
    }));
    this.#waiting = k;
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#done = resolve;
    void this.transport.sendMany(messages);
    return promise;
  }
}

/** The pipe as it is, then without its `writeText` (as before `keptWriter`). */
const sides: Record<string, Side> = {
  kept: new Side([]),
  encode: new Side(["writeText"]),
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ")[0];

/** CPU us per request of `side` over `writes` writes of `k`. */
async function measure(side: Side, k: number, writes: number): Promise<number> {
  const before = threadCpuMicros();
  for (let w = 0; w < writes; w++) await side.exchange(k);
  return (threadCpuMicros() - before) / (writes * k);
}

console.log(`load average ${load()} at the start\n`);
console.log(
  "| k | write | CPU us per request (median) | each round |\n| ---: | --- | ---: | --- |",
);
const names = Object.keys(sides);
for (const k of values.k!.split(",").map(Number)) {
  const runs: Record<string, number[]> = {};
  for (const name of names) await measure(sides[name]!, k, 300); // warm up
  for (let round = 0; round < Number(values.rounds); round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!;
      (runs[name] ??= []).push(await measure(sides[name]!, k, Number(values.writes)));
    }
  }
  for (const [name, xs] of Object.entries(runs)) {
    console.log(
      `| ${k} | ${name} | ${median(xs).toFixed(2)} | ${xs.map((x) => x.toFixed(2)).join(", ")} |`,
    );
  }
  for (let i = 1; i < names.length; i++) {
    const a = runs[names[i - 1]!]!, b = runs[names[i]!]!;
    const d = a.map((x, j) => x - b[j]!);
    console.log(
      `| ${k} | (${names[i - 1]}) - (${names[i]}), paired | ${median(d).toFixed(2)} | ${
        d.map((x) => x.toFixed(2)).join(", ")
      } |`,
    );
  }
}
console.log(`\nload average ${load()} at the end`);
for (const side of Object.values(sides)) {
  await side.transport.close();
  await side.child.status;
}

/**
 * The player alone over its pipe, no HTTP: the CPU it spends per action when the actions come
 * `k` to a write, sent as `k` lines of `action.run` or as one `action.batch` (protocol 1.11),
 * beside the design limit's bare child (`baseline_child.ts`) at the same `k`. Each write waits
 * for its answers, so `k` is exact, whatever the machine's load (docs/load.md, "Where the
 * action's CPU goes").
 *
 * `deno run -A bench/player_pipe_bench.ts --k 1,10 --writes 3000 --rounds 6`; with
 * `--before <checkout>`, that checkout's player too (its `action.batch`), each round in each place
 * in turn, and the paired per-round difference; `--prof <dir>` writes the players' `--cpu-prof`.
 * @module
 */
import { parseArgs } from "node:util";
import { bundledPlayerCommand, type BundledPlayerOptions } from "../server/player_client/spawn.ts";
import { createDemoProject } from "../player/demo.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import { threadCpuMicros } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    k: { type: "string", default: "1,10" },
    writes: { type: "string", default: "3000" },
    rounds: { type: "string", default: "6" },
    before: { type: "string" },
    prof: { type: "string" },
  },
});
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A child reading request lines on stdin and answering on stdout: the ids it answered. */
class Peer {
  readonly child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #text = "";
  #nextId = 1;

  constructor(program: string, args: string[]) {
    this.child = new Deno.Command(program, {
      args,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#reader = this.child.stdout.getReader();
  }

  /** Writes `lines` (each made with its id) in one write and waits for every answer. */
  async exchange(lines: Array<(id: number) => object>): Promise<void> {
    const ids = new Set<number>();
    let text = "";
    for (const line of lines) {
      const id = this.#nextId++;
      ids.add(id);
      text += JSON.stringify(line(id)) + "\n";
    }
    await this.#writer.write(encoder.encode(text));
    while (ids.size > 0) {
      for (let end = this.#text.indexOf("\n"); end >= 0; end = this.#text.indexOf("\n")) {
        ids.delete(JSON.parse(this.#text.slice(0, end)).id);
        this.#text = this.#text.slice(end + 1);
      }
      if (ids.size === 0) break;
      const { value, done } = await this.#reader.read();
      if (done) throw new Error("the child ended");
      this.#text += decoder.decode(value);
    }
  }

  async close(): Promise<void> {
    await this.#writer.close();
    await this.child.status;
  }
}

const action = (n: number) => ({
  name: "SET_CONTROL",
  params: { controlID: "A", value: (n % 100) / 100 },
  projectId: null,
});
const rpc = (method: string, params: unknown) => (id: number) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

/** The ways of sending `k` actions in one write: to the player, and to the bare child. */
const FORMS: Record<string, (k: number, n: number) => Array<(id: number) => object>> = {
  "action.run": (k, n) => Array.from({ length: k }, (_, i) => rpc("action.run", action(n + i))),
  "action.batch": (k, n) => [
    rpc("action.batch", { actions: Array.from({ length: k }, (_, i) => action(n + i)) }),
  ],
  "bare child": (k) => Array.from({ length: k }, () => (id: number) => ({ id, name: "SET" })),
};

/** CPU us per action of `peer` over `writes` writes of `k` actions in `form`. */
async function measure(peer: Peer, form: string, k: number, writes: number): Promise<number> {
  const before = threadCpuMicros(peer.child.pid);
  for (let w = 0; w < writes; w++) await peer.exchange(FORMS[form]!(k, w * k));
  return (threadCpuMicros(peer.child.pid) - before) / (writes * k);
}

const dataDirs: string[] = [];
/** A fresh data dir holding the demo project. */
async function demoDataDir(): Promise<string> {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-pipe-" });
  dataDirs.push(dataDir);
  await writeJsonAtomic(
    `${dataDir}/projects/demo/project.json`,
    await createDemoProject(`${dataDir}/projects/demo`),
  );
  return dataDir;
}
const PLAYER_OPTIONS: BundledPlayerOptions = {
  dataDir: "",
  plan: "pro",
  approval: "approve",
  virtualClock: false,
  positionIntervalMs: 0,
  historyLimit: 100,
  ffmpeg: "off",
  output: "none",
};

/** The player of the checkout at `root` (this one by default), initialized. */
async function startPlayer(root?: string): Promise<Peer> {
  const command: (o: BundledPlayerOptions) => string[] = root
    ? (await import(`${root}/server/player_client/spawn.ts`)).bundledPlayerCommand
    : bundledPlayerCommand;
  const [program, run, ...args] = command({ ...PLAYER_OPTIONS, dataDir: await demoDataDir() });
  const prof = values.prof
    ? ["--cpu-prof", `--cpu-prof-dir=${values.prof}`, "--cpu-prof-interval=100"]
    : [];
  const player = new Peer(program!, [run!, ...prof, ...args]);
  await player.exchange([rpc("initialize", { protocolVersion: "1.11" })]);
  await player.exchange([rpc("state.get", undefined)]);
  return player;
}

const player = await startPlayer();
const before = values.before ? await startPlayer(values.before) : null;
if (before) FORMS["before: action.batch"] = FORMS["action.batch"]!;
const child = new Peer(Deno.execPath(), [
  "run",
  new URL("./baseline_child.ts", import.meta.url).pathname,
]);
const peers: Record<string, Peer> = {
  "action.run": player,
  "action.batch": player,
  "bare child": child,
  ...(before ? { "before: action.batch": before } : {}),
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
console.log(`load average ${load()} at the start\n`);
console.log("| k | form | CPU us per action (median) | each round |\n| ---: | --- | ---: | --- |");
for (const k of values.k!.split(",").map(Number)) {
  const runs: Record<string, number[]> = {};
  for (const form of Object.keys(FORMS)) await measure(peers[form]!, form, k, 200); // warm up
  for (let round = 0; round < Number(values.rounds); round++) {
    // Each form in each place in turn.
    const forms = Object.keys(FORMS);
    for (let i = 0; i < forms.length; i++) {
      const form = forms[(i + round) % forms.length]!;
      (runs[form] ??= []).push(await measure(peers[form]!, form, k, Number(values.writes)));
    }
  }
  for (const [form, xs] of Object.entries(runs)) {
    console.log(
      `| ${k} | ${form} | ${median(xs).toFixed(1)} | ${xs.map((x) => x.toFixed(1)).join(", ")} |`,
    );
  }
  if (before) {
    const a = runs["action.batch"]!, b = runs["before: action.batch"]!;
    const d = a.map((x, i) => x - b[i]!);
    console.log(
      `| ${k} | action.batch - before, paired | ${median(d).toFixed(1)} | ${
        d.map((x) => x.toFixed(1)).join(", ")
      } |`,
    );
  }
}
console.log(`\nload average ${load()} at the end`);
await Promise.all([player.close(), child.close(), before?.close()]);
for (const dir of dataDirs) await Deno.remove(dir, { recursive: true });

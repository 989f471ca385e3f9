/**
 * What previews cost the output: the service as shipped (a subprocess, its player and a
 * headless output, software GL) playing the demo show's Opening Song (Aurora with its Soft
 * Blur, Rings, Checker, the Starfield background and the Bars), and 0, 1 and 4 clients each
 * asking `GET /api/v1/output/frame.jpg?size=320` 4 times a second (then 4 clients asking the
 * full-size `.png`, the picture without the page's scaling). For each: the output's frames a
 * second over the window (`framesDrawn` of `/health`), its render scale at the end, the
 * answers a second, their median time, the CPU time a second of the service's processes
 * (service, player and browser, from `/proc`: what previews take from the output on a busy
 * machine, which the load changes less than frames a second), and `uptime`'s 1-minute load.
 *
 * `deno run -A tools/output_preview_bench.ts [width height [seconds]]` (default 1280 720 20).
 * docs/output.md ("Preview") has the figures of this machine.
 * @module
 */
import { createDemoProject } from "../player/demo.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import { processTreeCpuMs } from "../player/output/process_cpu.ts";
import { ServiceProcess } from "./reliability/_service.ts";

const [width = 1280, height = 720, seconds = 20] = Deno.args.map(Number);
const POLL_MS = 250;

interface Health {
  output: { framesDrawn: number; framesPerSecond: number; renderScale: number } | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];

/** One client: a picture every `POLL_MS` (or as soon as the last came, when slower). */
async function poll(
  url: string,
  until: number,
  seen: { times: number[] },
): Promise<void> {
  while (performance.now() < until) {
    const start = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.ok) seen.times.push(performance.now() - start);
    await sleep(Math.max(0, POLL_MS - (performance.now() - start)));
  }
}

/** The output's figures over `seconds` while `clients` poll `path`. */
async function run(
  base: string,
  pid: number,
  clients: number,
  path: string,
): Promise<string> {
  const health = async () => (await (await fetch(`${base}/health`)).json()) as Health;
  await sleep(3000); // the clients of the row before are gone; the scale settles
  const before = (await health()).output!;
  const cpuBefore = processTreeCpuMs(pid) ?? 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  const seen = { times: [] as number[] };
  await Promise.all(Array.from({ length: clients }, () => poll(`${base}${path}`, until, seen)));
  const { times } = seen;
  if (clients === 0) await sleep(until - performance.now());
  const after = (await health()).output!;
  const elapsed = (performance.now() - start) / 1000;
  const cpu = ((processTreeCpuMs(pid) ?? 0) - cpuBefore) / elapsed;
  const fps = (after.framesDrawn - before.framesDrawn) / elapsed;
  times.sort((a, b) => a - b);
  const median = times.length ? `${times[Math.floor(times.length / 2)]!.toFixed(0)} ms` : "-";
  const rate = (n: number) => (n / elapsed).toFixed(1);
  return `| ${clients} | ${clients ? path : "-"} | ${fps.toFixed(1)} | ${after.renderScale} | ${
    rate(times.length)
  } | ${median} | ${cpu.toFixed(0)} | ${await load()} |`;
}

const dataDir = await Deno.makeTempDir({ prefix: "cueport-preview-bench-" });
const project = await createDemoProject(`${dataDir}/projects/demo`);
project.display = { ...project.display, width, height };
await writeJsonAtomic(`${dataDir}/projects/demo/project.json`, project);
const service = await ServiceProcess.start({ dataDir, args: ["--output", "headless"] });
const base = `http://127.0.0.1:${service.ready.ports.http}`;
try {
  const act = async (name: string, params: string[] = []) => {
    const res = await fetch(`${base}/api/v1/action`, {
      method: "POST",
      body: JSON.stringify({ name, params }),
    });
    if (!res.ok) throw new Error(`${name}: ${await res.text()}`);
    await res.body?.cancel();
  };
  while (((await (await fetch(`${base}/health`)).json()) as Health).output?.framesDrawn === 0) {
    await sleep(200);
  }
  await act("SONG_SELECT_BY_ID", ["song-opening"]);
  await act("PLAY_IN");
  for (const clipID of ["clip-aurora", "clip-rings", "clip-checker"]) {
    await act("TRIGGER_CLIP_IN", [clipID]);
  }
  // The page's first seconds load media and compile programs, and its scale settles.
  await sleep(20_000);
  console.log(`Output ${width}x${height}, headless, ${seconds} s a row, clients at 4 fps each`);
  console.log(
    "| Clients | Picture | Output frames/s | Scale | Answers/s | Median | CPU ms/s | Load |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
  const jpeg = "/api/v1/output/frame.jpg?size=320&quality=80";
  for (
    const [clients, path] of [[0, jpeg], [1, jpeg], [4, jpeg], [
      4,
      "/api/v1/output/frame.png",
    ]] as const
  ) {
    console.log(await run(base, service.pid, clients, path));
  }
} finally {
  await service.stop();
  await Deno.remove(dataDir, { recursive: true });
}

/**
 * How the output draws the demo show: headless Chromium (software GL), the demo's
 * Opening Song with its layers, Soft Blur and the Bars visualizer, at the size given.
 * Prints the time from the player's start to the first frame reported, then (once the
 * render scale held for 6 s) the frames a second over the sampled seconds and the scale.
 *
 * `deno run -A bench/output_load_bench.ts 1920 1080 [seconds [frameBudgetMs]]` (a huge
 * budget holds scale 1, a tiny one forces 0.35); run `stress-ng --cpu 4` beside it to see
 * it under load. The browser's CPU time a frame (its processes, from `/proc`) is the figure
 * a busy machine does not change.
 * @module
 */
import { PlayerApp } from "../player/app.ts";
import { MonotonicClock } from "../player/clock.ts";
import { createDemoProject } from "../player/demo.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import type { NormalizedAction } from "../protocol/actions.ts";
import { findBrowser } from "../player/output/browser.ts";
import { processTreeCpuMs } from "../player/output/process_cpu.ts";

const [width = 1280, height = 720, seconds = 20, frameBudgetMs] = Deno.args.map(Number);
const dataDir = await Deno.makeTempDir({ prefix: "cueport-output-load-" });
const project = await createDemoProject(`${dataDir}/projects/demo`);
project.display = { ...project.display, width, height };
await writeJsonAtomic(`${dataDir}/projects/demo/project.json`, project);

const logs: string[] = [];
const startedAt = performance.now();
const app = await PlayerApp.open({
  dataDir,
  clock: new MonotonicClock(),
  output: { mode: "headless", browser: findBrowser(), ...(frameBudgetMs ? { frameBudgetMs } : {}) },
  log: (level, message) =>
    logs.push(`${((performance.now() - startedAt) / 1000).toFixed(1)} s ${level}: ${message}`),
});
const openS = (performance.now() - startedAt) / 1000;
const output = app.output!;
const run = (name: string, params: Record<string, string> = {}) =>
  app.runAction({ name, params, projectId: null } as NormalizedAction);
await run("SONG_SELECT_BY_ID", { songID: "song-opening" });
await run("PLAY_IN");
for (const clipID of ["clip-aurora", "clip-rings", "clip-checker"]) {
  await run("TRIGGER_CLIP_IN", { clipID });
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let helloS = 0;
while (output.stats.framesDrawn === 0) {
  await sleep(20);
  if (!helloS && output.stats.pageLoads > 0) helloS = (performance.now() - startedAt) / 1000;
}
const firstFrameS = (performance.now() - startedAt) / 1000;
// The scale settles first (it steps every two slow seconds): 6 s without a change, 90 s at most.
const settleFrom = performance.now();
let scale = output.stats.renderScale, scaleSince = performance.now();
while (performance.now() - scaleSince < 6000 && performance.now() - settleFrom < 90_000) {
  await sleep(200);
  if (output.stats.renderScale !== scale) {
    [scale, scaleSince] = [output.stats.renderScale, performance.now()];
  }
}
const cpuFrom = processTreeCpuMs(output.browserPid!) ?? 0;
const from = output.stats.framesDrawn, fromAt = performance.now();
await sleep(seconds * 1000);
const frames = output.stats.framesDrawn - from;
const fps = frames / ((performance.now() - fromAt) / 1000);
const cpuPerFrame = ((processTreeCpuMs(output.browserPid!) ?? 0) - cpuFrom) / frames;
const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
console.log(
  `${width}x${height}: player open ${openS.toFixed(1)} s, page hello ${helloS.toFixed(1)} s, ` +
    `first frame reported ` +
    `${firstFrameS.toFixed(1)} s after the player's start, ` +
    `${fps.toFixed(1)} frames/s over ${seconds} s, render scale ${output.stats.renderScale}, ` +
    `browser CPU ${cpuPerFrame.toFixed(0)} ms a frame, ` +
    `browser starts ${output.stats.browserStarts}, load ${load}`,
);
for (const line of logs.filter((l) => !l.includes("info:"))) console.log(`  ${line}`);
await app.close();
await Deno.remove(dataDir, { recursive: true });

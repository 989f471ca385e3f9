/**
 * The frames part of the rig group's bench (docs/rigs.md, Outputs on the show clock): two rigs on
 * the tests' etcd cluster, each with a headless output (one Chromium each), both drawing the show
 * clock. Sampled every `sampleMs` for `seconds`: each rig's own status (`GET /api/v1/group`): its
 * page's frame lag from its player's clock (the mean of |lag| of the page's last report), its
 * show clock's error, and the shift its player's clock follows. Of the pairs: how far apart the
 * two rigs' frames draw show time, in frames of the test Project (30 fps): lag A + lag B plus the
 * follower's clock error (the frames' show times differ by their lags, each within its |lag|, and
 * the clocks' difference, which the error bounds). The pages report once a second: that bound is
 * per report, not per vsync. Per vsync, over the same window: both rigs play one looping Clip,
 * scheduled at one show time; each page's drawn frames (when drawn, on the machine's clock both
 * rigs share, and the Clip's position at the frame's drawn clock: what it shows), read by a
 * bench-only collector over a DevTools port its browser wrapper adds (`_vsync_browser.ts`), paired
 * by `_vsync_pairs.ts`: for each frame rig A draws, rig B's frame on screen then, the difference of
 * their frame indexes (position / frame duration). The drawn clock itself is the player's clock,
 * whose base is each player's own (its monotonic clock plus the shift it follows): two rigs' drawn
 * clocks are compared through the Clip they both started at one show time.
 * @module
 */
import { EtcdCluster, type Rig } from "../tools/testing/etcd_cluster.ts";
import { CHROMIUM } from "../tools/testing/browser.ts";
import { fixtureProject } from "../tools/testing/fixture.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import type { GroupStatus, RigClock } from "../protocol/rigs.ts";
import { debugBrowser, FrameCollector } from "./_vsync_browser.ts";
import { type DrawnFrame, pairVsyncs, type VsyncPairs } from "./_vsync_pairs.ts";

const FRAME_MS = 1000 / 30;
/** The Clip both rigs play, scheduled at one show time: the fixture's looping one, 30 s. */
const LOOPED = "cbg";
const LOOP_MS = 30_000;

/** What the frames part measured: per sample, each rig's lag and the difference, in frames. */
export interface FrameFigures {
  /** Each rig's page's frame lag behind its player's clock, frames (both rigs' samples). */
  lag: number[];
  /** The difference of the show time the two rigs' frames draw, bounded as above, frames. */
  difference: number[];
  /** The follower's show clock error, ms, per sample. */
  errorMs: number[];
  samples: number;
  /** Per vsync of rig A's page: rig B's frame on screen then, in frames (`pairVsyncs`). */
  vsyncs: VsyncPairs;
  /**
   * How far apart the two rigs began the Clip on their show times, frames (their play states'
   * readings, `clock.lastAction.clipStarts`, the earliest of each): part of what the frames show.
   */
  startApart: number;
  /** The seconds sampled. */
  seconds: number;
  /** Each page's frames drawn in the window (A, B). */
  drawn: [number, number];
  /** Each page's `Date.now()` minus its frames' time base, median, ms (A, B): 1 ms resolution. */
  skewMs: [number, number];
  /** The frame duration the pages drew at, ms. */
  frameMs: number;
}

/**
 * Waits until both rigs' clocks are synced, both pages report a frame lag, and both rigs reach
 * the quorum (an action is then scheduled on every rig).
 */
async function drawing(rigs: Rig[]): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    const all = await Promise.all(rigs.map((r) => r.get("/api/v1/group"))) as GroupStatus[];
    const ready = (s: GroupStatus) =>
      typeof s?.clock?.errorMs === "number" && s.clock.frameLagMs !== null && s.canEdit;
    if (all.every(ready)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the rigs' outputs did not report: ${rigs[1]!.stderr().slice(-2000)}`);
}

/** Two rigs with headless outputs, sampled every `sampleMs` for `seconds`, and their frames. */
export async function measureFrames(seconds: number, sampleMs = 250): Promise<FrameFigures> {
  const cluster = await EtcdCluster.start();
  const browser = await debugBrowser(CHROMIUM);
  const prepare = (dir: string) =>
    writeJsonAtomic(`${dir}/projects/show/project.json`, fixtureProject());
  const args = ["--output", "headless", "--output-browser", browser.path];
  let collectors: FrameCollector[] = [];
  try {
    const rigs = await Promise.all(
      ["rig-a", "rig-b"].map((name) => cluster.startRig(name, "bench", { prepare, args })),
    );
    await drawing(rigs);
    const answer = await rigs[0]!.post("/api/v1/action", {
      name: "TRIGGER_CLIP_IN",
      params: [LOOPED],
    });
    const message = answer.body.message as string | undefined;
    if (!message?.startsWith("Scheduled on every rig")) throw new Error(`refused: ${message}`);
    collectors = rigs.map((r) => new FrameCollector(r.ns, LOOPED));
    await recording(collectors);
    const started = performance.timeOrigin + performance.now();
    const figures = await sampleReports(rigs, seconds, sampleMs);
    const ended = performance.timeOrigin + performance.now();
    await Promise.all(collectors.map((c) => c.close()));
    return { ...figures, seconds, ...pairedFrames(collectors, started, ended) };
  } finally {
    await Promise.all(collectors.map((c) => c.close()));
    await cluster.remove();
    await browser.remove();
  }
}

/** Waits until both collectors read frames (the pages wrapped), bounded. */
async function recording(collectors: FrameCollector[]): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (collectors.every((c) => c.frames.length > 0)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the collectors read no frames of the output pages (60 s)");
}

/** The pages' frames drawn between `from` and `to` (machine clock, ms), paired per vsync. */
function pairedFrames(collectors: FrameCollector[], from: number, to: number) {
  const [a, b] = collectors.map((c) =>
    c.frames.filter(([at]) => at >= from && at <= to).map(([at, show]): DrawnFrame => ({
      at,
      show,
    }))
  ) as [DrawnFrame[], DrawnFrame[]];
  const frameMs = collectors[0]!.frames[0]![3];
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1] ?? NaN;
  return {
    vsyncs: pairVsyncs(a, b, frameMs, LOOP_MS),
    drawn: [a.length, b.length] as [number, number],
    skewMs: collectors.map((c) => median(c.skewMs)) as [number, number],
    frameMs,
  };
}

/** Each rig's page reports (its frame lag, its clock's error), sampled for `seconds`. */
async function sampleReports(rigs: Rig[], seconds: number, sampleMs: number) {
  const figures = { lag: [] as number[], difference: [] as number[], errorMs: [] as number[] };
  let samples = 0;
  // Each rig's reading of when the Clip began on its show time: the earliest (`rigs_bench.ts`).
  const began = [Infinity, Infinity];
  const end = performance.now() + seconds * 1000;
  let seen = "";
  while (performance.now() < end) {
    const clocks = (await Promise.all(rigs.map((r) => r.get("/api/v1/group"))) as GroupStatus[])
      .map((s) => s.clock) as RigClock[];
    clocks.forEach((c, i) => {
      const start = c.lastAction?.clipStarts[LOOPED];
      if (start !== undefined) began[i] = Math.min(began[i]!, start);
    });
    // A new report on either rig: one sample (the pages report once a second).
    const key = clocks.map((c) => c.frameLagMs).join();
    if (key !== seen && clocks.every((c) => c.frameLagMs !== null && c.errorMs !== null)) {
      seen = key;
      const [a, b] = clocks as [RigClock, RigClock];
      const errorMs = Math.max(a.errorMs!, b.errorMs!);
      figures.lag.push(a.frameLagMs! / FRAME_MS, b.frameLagMs! / FRAME_MS);
      figures.difference.push((a.frameLagMs! + b.frameLagMs! + errorMs) / FRAME_MS);
      figures.errorMs.push(errorMs);
      samples++;
    }
    await new Promise((r) => setTimeout(r, sampleMs));
  }
  return { ...figures, samples, startApart: Math.abs(began[0]! - began[1]!) / FRAME_MS };
}

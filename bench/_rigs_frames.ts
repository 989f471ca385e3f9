/**
 * The frames part of the rig group's bench (docs/rigs.md, Outputs on the show clock): two rigs on
 * the tests' etcd cluster, each with a headless output (one Chromium each), both drawing the show
 * clock. Sampled every `sampleMs` for `seconds`: each rig's own status (`GET /api/v1/group`): its
 * page's frame lag from its player's clock (the mean of |lag| of the page's last report), its
 * show clock's error, and the shift its player's clock follows. Of the pairs: how far apart the
 * two rigs' frames draw show time, in frames of the test Project (30 fps): lag A + lag B plus the
 * follower's clock error (the frames' show times differ by their lags, each within its |lag|, and
 * the clocks' difference, which the error bounds). The pages report once a second: this is per report, not per vsync.
 * @module
 */
import { EtcdCluster, type Rig } from "../tests/_helpers/etcd_cluster.ts";
import { CHROMIUM } from "../tests/_helpers/browser.ts";
import { fixtureProject } from "../tests/_helpers/fixture.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import type { GroupStatus, RigClock } from "../protocol/rigs.ts";

const FRAME_MS = 1000 / 30;

/** What the frames part measured: per sample, each rig's lag and the difference, in frames. */
export interface FrameFigures {
  /** Each rig's page's frame lag behind its player's clock, frames (both rigs' samples). */
  lag: number[];
  /** The difference of the show time the two rigs' frames draw, bounded as above, frames. */
  difference: number[];
  /** The follower's show clock error, ms, per sample. */
  errorMs: number[];
  samples: number;
}

/** Waits until both rigs' clocks are synced and both pages report a frame lag. */
async function drawing(rigs: Rig[]): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    const all = await Promise.all(rigs.map((r) => r.get("/api/v1/group"))) as GroupStatus[];
    if (all.every((s) => typeof s?.clock?.errorMs === "number" && s.clock.frameLagMs !== null)) {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the rigs' outputs did not report: ${rigs[1]!.stderr().slice(-2000)}`);
}

/** Two rigs with headless outputs, sampled every `sampleMs` for `seconds`. */
export async function measureFrames(seconds: number, sampleMs = 250): Promise<FrameFigures> {
  const cluster = await EtcdCluster.start();
  const prepare = (dir: string) =>
    writeJsonAtomic(`${dir}/projects/show/project.json`, fixtureProject());
  const args = ["--output", "headless", "--output-browser", CHROMIUM];
  try {
    const rigs = await Promise.all(
      ["rig-a", "rig-b"].map((name) => cluster.startRig(name, "bench", { prepare, args })),
    );
    await drawing(rigs);
    const figures: FrameFigures = { lag: [], difference: [], errorMs: [], samples: 0 };
    const end = performance.now() + seconds * 1000;
    let seen = "";
    while (performance.now() < end) {
      const clocks = (await Promise.all(rigs.map((r) => r.get("/api/v1/group"))) as GroupStatus[])
        .map((s) => s.clock) as RigClock[];
      // A new report on either rig: one sample (the pages report once a second).
      const key = clocks.map((c) => c.frameLagMs).join();
      if (key !== seen && clocks.every((c) => c.frameLagMs !== null && c.errorMs !== null)) {
        seen = key;
        const [a, b] = clocks as [RigClock, RigClock];
        const errorMs = Math.max(a.errorMs!, b.errorMs!);
        figures.lag.push(a.frameLagMs! / FRAME_MS, b.frameLagMs! / FRAME_MS);
        figures.difference.push((a.frameLagMs! + b.frameLagMs! + errorMs) / FRAME_MS);
        figures.errorMs.push(errorMs);
        figures.samples++;
      }
      await new Promise((r) => setTimeout(r, sampleMs));
    }
    return figures;
  } finally {
    await cluster.remove();
  }
}

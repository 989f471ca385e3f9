/**
 * A small, deterministic project written to a temp data dir, and an
 * in-process player on a virtual clock for semantics tests.
 */
import { CONTROL_IDS } from "../../protocol/action_rules.ts";
import { Project } from "../../protocol/model.ts";
import type { NormalizedAction } from "../../protocol/actions.ts";
import type { StateUpdate } from "../../protocol/state.ts";
import { PlayerApp } from "../../player/app.ts";
import { VirtualClock } from "../../player/clock.ts";
import { writeJsonAtomic } from "../../lib/atomic_write.ts";

const clip = (id: string, duration: number, extra: Record<string, unknown> = {}) => ({
  id,
  name: id,
  fileId: null,
  duration,
  ...extra,
});

/** The fixture project document. */
export function fixtureProject(): Project {
  return Project.parse({
    id: "show",
    name: "Fixture Show",
    files: [{
      id: "f-audio",
      kind: "audio",
      name: "one.wav",
      path: "media/one.wav",
      mimeType: "audio/wav",
      size: 100,
      width: null,
      height: null,
      duration: 20,
    }],
    clips: [
      clip("c1", 10),
      clip("c2", 4, { launchMode: "Gate", loop: true }),
      clip("c3", 6, { launchMode: "Toggle" }),
      clip("c4", 5, { retrigger: "ignore" }),
      clip("c5", 3, { launchMode: "OneShot", loop: true }),
      clip("c6", 8, { retrigger: "stop", velocitySensitivity: 1 }),
      clip("c7", 10, { direction: "backward" }),
      clip("cbg", 30, { loop: true }),
    ],
    songs: [
      {
        id: "s1",
        title: "One",
        pgmId: "10",
        audioFileId: "f-audio",
        clips: ["c1", "c2", "c3", "c4"],
        timeline: [
          { id: "q1", time: 5, action: "play", clipID: "c4" },
          { id: "q2", time: 8, action: "stop", clipID: "c4" },
        ],
        lyrics: [{ time: 1, text: "first" }, { time: 6, text: "second" }],
      },
      { id: "s2", title: "Two", pgmId: "20", clips: ["c5", "c6"] },
      { id: "s3", title: "Three", pgmId: "30", clips: ["c7"] },
    ],
    backgroundClips: ["cbg"],
    effects: [
      { id: "e1", name: "Soft Blur", type: "blur", presetId: "fx-blur", params: { radius: 3 } },
      { id: "e2", name: "Raw Noise", type: "noise" },
    ],
    visualizers: [{ id: "v1", name: "Bars", engine: "bars", presetId: "viz-spectrum" }],
    controls: CONTROL_IDS.map((id) => ({
      id,
      targets: id === "A"
        ? [{ target: "clip:c1/opacity" }]
        : id === "B"
        ? [{ target: "clip:c1/speed", min: 0.5, max: 2, curve: "exponential" }]
        : id === "C"
        ? [{ target: "clip:gone/opacity" }, { target: "clip:c4/volume", invert: true }]
        : [],
    })),
  });
}

/** Writes the fixture into a fresh temp data dir and returns the dir. */
export async function fixtureDataDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "cueport-test-" });
  await writeJsonAtomic(`${dir}/projects/show/project.json`, fixtureProject());
  return dir;
}

/** An in-process player on the fixture, with every update it emits. */
export interface FixturePlayer {
  app: PlayerApp;
  clock: VirtualClock;
  dataDir: string;
  updates: StateUpdate[];
  /** Runs an action (normalized params, active project). */
  run(
    name: string,
    params?: Record<string, string | number | boolean>,
    velocity?: number,
  ): ReturnType<PlayerApp["runAction"]>;
  /** The play state of the fixture project. */
  state(): ReturnType<PlayerApp["snapshot"]>["playstates"][number];
  /** State of one clip: "stopped" when absent. */
  clipState(id: string): string;
  /** Events emitted so far, `updateType:event`. */
  events(): string[];
  close(): Promise<void>;
}

/** Opens the fixture player. */
export async function openFixture(
  options: { positionIntervalMs?: number } = {},
): Promise<FixturePlayer> {
  const dataDir = await fixtureDataDir();
  const clock = new VirtualClock();
  const app = await PlayerApp.open({
    dataDir,
    clock,
    positionIntervalMs: options.positionIntervalMs ?? 0,
  });
  const updates: StateUpdate[] = [];
  app.onUpdate = (u) => updates.push(u);
  const fixture: FixturePlayer = {
    app,
    clock,
    dataDir,
    updates,
    run(name, params = {}, velocity) {
      const action: NormalizedAction = { name, params, projectId: null };
      if (velocity !== undefined) action.velocity = velocity;
      return app.runAction(action);
    },
    state: () => app.snapshot().playstates[0]!,
    clipState: (id) => fixture.state().clips.find((c) => c.clipID === id)?.state ?? "stopped",
    events: () => updates.map((u) => `${u.updateType}:${u.data.event}`),
    async close() {
      await app.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
  return fixture;
}

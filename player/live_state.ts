/**
 * The player's live state: what a restarted player needs to resume the show
 * where it was (`<dataDir>/live.json`). Per Project the show state of
 * `engine/live_snapshot.ts`; for the app the recording. Volume, mute, full
 * screen and the active Project are settings (`player.json`, `store.ts`).
 *
 * Positions are on the player's clock, which starts again with each process,
 * so the file holds each position as it was when saved plus the wall time
 * of the save (`savedAt`, `Date.now()`): a restarted player moves what
 * played on by the wall time that passed, as a band plays on through a crash.
 *
 * The file keeps `KEEP_LIVE_GENERATIONS` previous versions; a damaged one is
 * served from the newest good copy (`lib/recover_file.ts`). The entries
 * of Projects in the library that are not open (damaged, closed) are carried
 * from write to write, never dropped because their file could not be read.
 * @module
 */
import { z } from "zod";
import { KEEP_LIVE_GENERATIONS } from "../lib/kept_copies.ts";
import type { DataProblem } from "../protocol/library.ts";
import { jsonParser, readRecovering } from "../lib/recover_file.ts";
import { captureEngine, ProjectLive, restoreEngine } from "./engine/live_snapshot.ts";
import type { ProjectEngine } from "./engine/project_engine.ts";
import type { Recorder } from "./recorder.ts";
import { ActionKey } from "./action_keys.ts";

/** Version of the file's layout; a file of another version is ignored. */
export const LIVE_STATE_VERSION = 1;

/** File name under the data dir. */
export const LIVE_STATE_FILE = "live.json";

/** The recording, and how far it had got. */
export const RecordingLive = z.object({
  state: z.enum(["idle", "armed", "recording"]),
  /** Relative to the data dir; only names the recorder itself makes. */
  file: z.string().regex(/^recordings\/recording-[0-9A-Za-z-]+\.(jsonl|webm)$/).nullable(),
  startedAt: z.string().nullable(),
  /** Milliseconds recorded when saved, on the player's clock (the offsets in the file). */
  ms: z.number().min(0),
});
/** The recording, and how far it had got. */
export type RecordingLive = z.infer<typeof RecordingLive>;

/** The whole file. */
export const LiveState = z.object({
  version: z.literal(LIVE_STATE_VERSION),
  /** Wall time of the save, ms since the epoch. */
  savedAt: z.number(),
  recording: RecordingLive,
  /** By Project id. */
  projects: z.record(z.string(), ProjectLive),
  /**
   * Output level and mute as they were: also settings (`player.json`), but kept here too, so
   * they and the retry keys of the actions that changed them are written together.
   */
  output: z.object({ volume: z.number().min(0).max(1), muted: z.boolean() }).optional(),
  /** The retry keys of the actions applied (`action_keys.ts`). */
  actionKeys: z.array(ActionKey).default([]),
});
/** The whole file. */
export type LiveState = z.infer<typeof LiveState>;

/** What the app adds to the show state of its engines. */
export interface AppLive {
  output: { volume: number; muted: boolean };
  actionKeys: ActionKey[];
}

/** What `captureLiveState` writes besides the engines. */
export interface AppLiveToSave extends AppLive {
  /** Entries of Projects that are not open, carried as they were (see the module). */
  carried?: Readonly<Record<string, ProjectLive>>;
}

/** The live state of `engines`, `recorder` and the app at the current clock reading. */
export function captureLiveState(
  engines: ReadonlyMap<string, ProjectEngine>,
  recorder: Recorder,
  savedAt: number,
  app: AppLiveToSave,
): LiveState {
  const open = Object.fromEntries([...engines].map(([id, e]) => [id, captureEngine(e)]));
  return {
    version: LIVE_STATE_VERSION,
    savedAt,
    recording: { ...recorder.state, ms: recorder.elapsedMs() },
    projects: { ...app.carried, ...open },
    output: app.output,
    actionKeys: app.actionKeys,
  };
}

/**
 * The live state's text without its time stamp (`savedAt`) when nothing in it moves with time,
 * else null (`LiveSaver`'s `stillKey`). Only a playing Song or Clip and a running recording
 * move (a restore moves them by the wall time since `savedAt`, `restoreEngine`); with none,
 * a state saved earlier with the same text restores the same show, so a write of it alone (an
 * action that changed nothing of it, a fader's stream on a stopped show) is skipped.
 */
export function stillKeyOf(state: LiveState): string | null {
  if (state.recording.state === "recording") return null;
  for (const project of Object.values(state.projects)) {
    if (project.song?.state === "playing") return null;
    if (project.voices.some((voice) => voice.state === "playing")) return null;
  }
  return JSON.stringify({ ...state, savedAt: 0 });
}

/** What `restoreLiveState` restores into. */
export interface RestoreTarget {
  /** The Projects loaded now, by id. */
  engines: ReadonlyMap<string, ProjectEngine>;
  recorder: Recorder;
  /** Wall time now, ms since the epoch; null when no time is to pass (a virtual clock). */
  wallNow: number | null;
  /** The data dir (a problem names the file relative to it). */
  dataDir: string;
  /** Projects of the library that are not open: their entries are carried, not skipped. */
  notOpen: ReadonlySet<string>;
  log?: (level: "info" | "warn", message: string) => void;
}

/** What `restoreLiveState` found. */
export interface RestoredLive {
  /** What the app itself restores (output, action keys); null when nothing was saved. */
  app: Partial<AppLive> | null;
  /** The entries of the Projects of `RestoreTarget.notOpen`, to carry on. */
  carried: Record<string, ProjectLive>;
  /** Set when `live.json` was damaged (served from a kept copy, or not at all). */
  problem: DataProblem | null;
}

/**
 * Resumes the show saved at `path`: each Project open gets its show state
 * back, those not open keep theirs (`carried`), what no longer exists is
 * skipped and logged; the recording goes on. A missing file is a first start;
 * a damaged one is served from its newest good kept copy, or ignored (moved
 * aside): it never stops the player from starting (`problem` says which).
 */
export async function restoreLiveState(
  path: string,
  target: RestoreTarget,
): Promise<RestoredLive> {
  const { log } = target;
  const read = await readRecovering(path, {
    dataDir: target.dataDir,
    parse: jsonParser(LiveState),
    keep: KEEP_LIVE_GENERATIONS,
  });
  const saved = read.value;
  const carried: Record<string, ProjectLive> = {};
  if (!saved) return { app: null, carried, problem: read.problem };
  const elapsedMs = target.wallNow === null ? 0 : Math.max(0, target.wallNow - saved.savedAt);
  try {
    target.recorder.resume(saved.recording, elapsedMs);
  } catch (error) {
    log?.(
      "warn",
      `Cannot resume the recording ${saved.recording.file}: ${(error as Error).message}`,
    );
  }
  const skipped: string[] = [];
  for (const [id, project] of Object.entries(saved.projects)) {
    const engine = target.engines.get(id);
    if (target.notOpen.has(id)) carried[id] = project;
    else if (!engine) skipped.push(`Project "${id}"`);
    else {skipped.push(
        ...restoreEngine(engine, project, elapsedMs).map((s) => `${s} in Project "${id}"`),
      );}
  }
  if (skipped.length > 0) {
    log?.("info", `Live state not restored (no longer there): ${skipped.join(", ")}`);
  }
  const app = { actionKeys: saved.actionKeys, ...(saved.output ? { output: saved.output } : {}) };
  return { app, carried, problem: read.problem };
}

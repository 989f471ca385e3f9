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
 * @module
 */
import { z } from "zod";
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

/**
 * Reads the live state; null when there is none.
 * @throws {Error} when the file cannot be read or is not a live state of this version
 */
export async function readLiveState(path: string): Promise<LiveState | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  const parsed = LiveState.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`${issue.path.join(".") || "the file"}: ${issue.message}`);
}

/** What the app adds to the show state of its engines. */
export interface AppLive {
  output: { volume: number; muted: boolean };
  actionKeys: ActionKey[];
}

/** The live state of `engines`, `recorder` and the app at the current clock reading. */
export function captureLiveState(
  engines: ReadonlyMap<string, ProjectEngine>,
  recorder: Recorder,
  savedAt: number,
  app: AppLive,
): LiveState {
  return {
    version: LIVE_STATE_VERSION,
    savedAt,
    recording: { ...recorder.state, ms: recorder.elapsedMs() },
    projects: Object.fromEntries([...engines].map(([id, e]) => [id, captureEngine(e)])),
    output: app.output,
    actionKeys: app.actionKeys,
  };
}

/** What `restoreLiveState` restores into. */
export interface RestoreTarget {
  /** The Projects loaded now, by id. */
  engines: ReadonlyMap<string, ProjectEngine>;
  recorder: Recorder;
  /** Wall time now, ms since the epoch; null when no time is to pass (a virtual clock). */
  wallNow: number | null;
  log?: (level: "info" | "warn", message: string) => void;
}

/**
 * Resumes the show saved at `path`: each Project still there gets its show
 * state back (what no longer exists is skipped and logged), the recording
 * goes on. A missing file is a first start; one that cannot be used is
 * logged and ignored: it never stops the player from starting. Returns what
 * the app itself restores (output, action keys), or null when nothing was saved.
 */
export async function restoreLiveState(
  path: string,
  target: RestoreTarget,
): Promise<Partial<AppLive> | null> {
  const { log } = target;
  let saved: LiveState | null;
  try {
    saved = await readLiveState(path);
  } catch (error) {
    log?.(
      "warn",
      `Cannot restore the live state from ${LIVE_STATE_FILE}: ${(error as Error).message}`,
    );
    return null;
  }
  if (!saved) return null;
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
    if (!engine) skipped.push(`Project "${id}"`);
    else {skipped.push(
        ...restoreEngine(engine, project, elapsedMs).map((s) => `${s} in Project "${id}"`),
      );}
  }
  if (skipped.length > 0) {
    log?.("info", `Live state not restored (no longer there): ${skipped.join(", ")}`);
  }
  return { actionKeys: saved.actionKeys, ...(saved.output ? { output: saved.output } : {}) };
}

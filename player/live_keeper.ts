/**
 * The app's live state (`live.json`, `live_state.ts`): written soon after each change, off
 * the request path, and read back at start so a restarted player resumes the show. The
 * retry keys of the actions applied are kept with it.
 * @module
 */
import type { ActionOutcome } from "../protocol/methods.ts";
import { KEEP_LIVE_GENERATIONS } from "../lib/kept_copies.ts";
import { ActionKeys } from "./action_keys.ts";
import { type Clock, VirtualClock } from "./clock.ts";
import type { OpenProjects } from "./library/open_projects.ts";
import { LiveSaver } from "./live_saver.ts";
import {
  captureLiveState,
  LIVE_STATE_FILE,
  type LiveState,
  restoreLiveState,
  stillKeyOf,
} from "./live_state.ts";
import type { Recorder } from "./recorder.ts";

/**
 * Least time between two writes of the live state, ms: a change is on disk
 * within this gap plus one write. A write (temp + rename, no fsync, about 2
 * KB) costs the player 250-480 us of CPU on the 2-core VM (2,000 writes in a
 * loop), so a fader stream costs at most 10 writes a second, under 0.5% of a
 * core.
 */
const LIVE_SAVE_GAP_MS = 100;

/** What the live state is made of (`PlayerApp`). */
export interface LiveKeeperHost {
  readonly dataDir: string;
  readonly clock: Clock;
  readonly projects: OpenProjects;
  readonly recorder: Recorder;
  /** The output level and mute now. */
  output(): { volume: number; muted: boolean };
  /** `PlayerOptions.wallNow`. */
  wallNow?: () => number;
  /** Where problems go. */
  log?: (level: "info" | "warn" | "error", message: string) => void;
}

/** Saves and restores the live state of the open Projects, the recorder and the output. */
export class LiveKeeper {
  /** Retry keys of the actions applied, saved with the live state. */
  readonly actionKeys = new ActionKeys();
  #host: LiveKeeperHost;
  #saver: LiveSaver;

  /** Nothing read or written yet: `restore` reads, `markDirty` writes soon. */
  constructor(host: LiveKeeperHost) {
    this.#host = host;
    this.#saver = new LiveSaver({
      path: `${host.dataDir}/${LIVE_STATE_FILE}`,
      build: () => this.#capture(),
      gapMs: LIVE_SAVE_GAP_MS,
      keep: KEEP_LIVE_GENERATIONS,
      // A state that differs from the last written only in its time stamp is not written.
      stillKey: (state) => stillKeyOf(state as LiveState),
      log: (message) => host.log?.("error", message),
    });
  }

  /** Notes a change: the live state is written soon. */
  markDirty(): void {
    this.#saver.markDirty();
  }

  /**
   * Runs an action once per retry key: a key seen before answers the outcome kept for it,
   * a new one keeps `run`'s outcome with the live state it changed (both are in the next
   * write of `live.json`). Without a key, `run` runs.
   */
  runOnce(
    key: string | undefined,
    run: () => ActionOutcome | Promise<ActionOutcome>,
  ): ActionOutcome | Promise<ActionOutcome> {
    if (key === undefined) return run();
    const known = this.actionKeys.get(key);
    if (known) return { ...known };
    const outcome = run();
    const keep = (o: ActionOutcome) => {
      this.actionKeys.set(key, o);
      this.markDirty();
      return o;
    };
    return outcome instanceof Promise ? outcome.then(keep) : keep(outcome);
  }

  /** Writes the live state now and waits for it. */
  flush(): Promise<void> {
    return this.#saver.flush();
  }

  /** Writes what is pending and stops. */
  close(): Promise<void> {
    return this.#saver.close();
  }

  /**
   * Resumes the show a previous run saved, before anything is served: the open Projects'
   * engines and the recorder; the entries of Projects not open are carried on.
   * @returns the output level and mute saved, if any
   */
  async restore(): Promise<{ volume: number; muted: boolean } | undefined> {
    const { dataDir, projects, recorder, log } = this.#host;
    const { app, carried, problem } = await restoreLiveState(`${dataDir}/${LIVE_STATE_FILE}`, {
      engines: projects.engines,
      recorder,
      wallNow: this.#wallNow(),
      dataDir,
      notOpen: new Set(projects.notOpen.entries.map((e) => e.projectId)),
      ...(log ? { log } : {}),
    });
    projects.notOpen.noteProblems([problem]);
    projects.keepLive(carried);
    this.actionKeys.load(app?.actionKeys ?? []);
    return app?.output;
  }

  /** The live state to write now, the entries of Projects not open carried over. */
  #capture(): LiveState {
    const { projects, recorder } = this.#host;
    const state = captureLiveState(projects.engines, recorder, this.#wallNow() ?? Date.now(), {
      output: this.#host.output(),
      actionKeys: this.actionKeys.toJSON(),
      carried: projects.carriedLive(),
    });
    projects.keepLive(state.projects);
    return state;
  }

  /** Wall time for the live state, or null on a virtual clock (no time passes there). */
  #wallNow(): number | null {
    if (this.#host.wallNow) return this.#host.wallNow();
    return this.#host.clock instanceof VirtualClock ? null : Date.now();
  }
}

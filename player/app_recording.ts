/**
 * The recording of the application (`recorder.ts`) told in the app state: each change of
 * the recording (a toggle, a start armed for the next trigger, its figures) is an
 * `appState` update `recording-changed`.
 * @module
 */
import type { AppStatus } from "./app_status.ts";
import type { Clock } from "./clock.ts";
import type { Output } from "./output/mod.ts";
import { Recorder } from "./recorder.ts";

/** What the recording needs (`PlayerApp`). */
export interface AppRecordingOptions {
  dataDir: string;
  clock: Clock;
  status: AppStatus;
  /** The output that records the picture and sound, while it runs. */
  output(): Output | null;
  log(message: string): void;
}

/** The recorder, its changes told in the app state. */
export class AppRecording {
  /** The recorder (its state, the play-state log, the live state's part of it). */
  readonly recorder: Recorder;
  /**
   * The decision time of the action running now (a rig group's, protocol 1.15), Unix ms: a
   * recording it starts is named by it, the same on every rig; null: the machine's clock.
   */
  decidedAt: number | null = null;
  #status: AppStatus;

  /** Nothing recorded yet. */
  constructor(options: AppRecordingOptions) {
    this.#status = options.status;
    this.recorder = new Recorder(options.dataDir, () => options.clock.now(), {
      video: () => options.output(),
      log: options.log,
      changed: () => this.#told(),
      namedAt: () => this.decidedAt ?? Date.now(),
    });
  }

  /** Starts recording, arms it, or stops it, per the spec's state table. */
  toggle(mode: "now" | "next-trigger"): string | Promise<string> {
    const message = this.recorder.toggle(mode);
    this.#told();
    return message;
  }

  /**
   * Runs `run`, an action's synchronous part (where a toggle or the Clip start of an armed
   * recording happens), with the recordings it starts named by `at` (a group's decision time).
   */
  decidedBy<T>(at: number | undefined, run: () => T): T {
    this.decidedAt = at ?? null;
    try {
      return run();
    } finally {
      this.decidedAt = null;
    }
  }

  /** A Clip started: a recording armed for the next trigger starts. */
  clipStarted(): void {
    if (this.recorder.onClipStarted()) this.#told();
  }

  #told(): void {
    this.#status.change("recording-changed", { recording: this.recorder.state });
  }
}

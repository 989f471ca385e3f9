/**
 * Recording of the output, per the spec's state table: `now` starts at once,
 * `next-trigger` arms and starts on the next Clip start, any toggle while
 * armed or recording ends it. The headless player records what played as a
 * JSON-lines file under `recordings/`, one line per play-state change.
 * @module
 */
import type { Recording, StateUpdate } from "../protocol/state.ts";

/** Writes recordings under `<dataDir>/recordings`. */
export class Recorder {
  #dataDir: string;
  #now: () => number;
  #file: Deno.FsFile | null = null;
  #startedAt = 0;
  #encoder = new TextEncoder();
  state: Recording = { state: "idle", file: null, startedAt: null };

  /** `now` gives milliseconds on the player's clock, for offsets in the log. */
  constructor(dataDir: string, now: () => number) {
    this.#dataDir = dataDir;
    this.#now = now;
  }

  /** Applies RECORD_TOGGLE; returns a one-line account. */
  toggle(mode: "now" | "next-trigger"): string {
    if (this.state.state === "armed") {
      this.state = { ...this.state, state: "idle" };
      return "Recording disarmed";
    }
    if (this.state.state === "recording") {
      const file = this.state.file;
      this.stop();
      return `Recording stopped: ${file}`;
    }
    if (mode === "next-trigger") {
      this.state = { state: "armed", file: null, startedAt: null };
      return "Recording armed; it starts on the next Clip trigger";
    }
    this.#start("now");
    return `Recording started: ${this.state.file}`;
  }

  /** A Clip started: an armed recording begins. Returns true when it did. */
  onClipStarted(): boolean {
    if (this.state.state !== "armed") return false;
    this.#start("next-trigger");
    return true;
  }

  /** Appends one update to the log while recording (position reports excluded). */
  log(update: StateUpdate): void {
    if (!this.#file || update.data.event === "positions") return;
    const { playstate: _omit, ...data } = update.data;
    this.#write({
      ms: Math.round(this.#now() - this.#startedAt),
      updateType: update.updateType,
      projectId: update.projectId,
      ...data,
    });
  }

  /** Milliseconds recorded so far (the offset the next line gets); 0 when not recording. */
  elapsedMs(): number {
    return this.#file ? this.#now() - this.#startedAt : 0;
  }

  /**
   * Takes up a recording a previous run of the player left (`live_state.ts`):
   * an armed one is armed again; one in progress goes on in the same file, in
   * append mode, after a `recording-resumed` line, its offsets continuing from
   * `ms` plus `gapMs` (the time the player was down). Throws when the file
   * cannot be opened; the recorder is then idle.
   */
  resume(saved: Recording & { ms: number }, gapMs: number): void {
    if (saved.state === "armed") {
      this.state = { state: "armed", file: null, startedAt: null };
      return;
    }
    if (saved.state !== "recording" || saved.file === null) return;
    this.#file = Deno.openSync(`${this.#dataDir}/${saved.file}`, { create: true, append: true });
    this.#startedAt = this.#now() - saved.ms - gapMs;
    this.state = { state: "recording", file: saved.file, startedAt: saved.startedAt };
    const at = new Date().toISOString();
    this.#write({ ms: Math.round(saved.ms + gapMs), event: "recording-resumed", at });
  }

  /**
   * Closes the file of a recording in progress without ending it, at a clean
   * shutdown: the state stays `recording`, and the next start resumes it.
   */
  suspend(): void {
    if (!this.#file) return;
    this.#write({ ms: Math.round(this.elapsedMs()), event: "recording-suspended" });
    this.#file.close();
    this.#file = null;
  }

  /** Ends a recording in progress and closes its file. */
  stop(): void {
    if (!this.#file) return;
    this.#write({ ms: Math.round(this.#now() - this.#startedAt), event: "recording-stopped" });
    this.#file.close();
    this.#file = null;
    this.state = { ...this.state, state: "idle" };
  }

  #start(trigger: string): void {
    const wall = new Date();
    const relative = `recordings/recording-${wall.toISOString().replace(/[:.]/g, "-")}.jsonl`;
    Deno.mkdirSync(`${this.#dataDir}/recordings`, { recursive: true });
    this.#file = Deno.openSync(`${this.#dataDir}/${relative}`, { create: true, append: true });
    this.#startedAt = this.#now();
    this.state = { state: "recording", file: relative, startedAt: wall.toISOString() };
    this.#write({ ms: 0, event: "recording-started", trigger, at: wall.toISOString() });
  }

  #write(line: Record<string, unknown>): void {
    this.#file!.writeSync(this.#encoder.encode(JSON.stringify(line) + "\n"));
  }
}

/**
 * Recording of the output, per the spec's state table: `now` starts at once,
 * `next-trigger` arms and starts on the next Clip start, any toggle while
 * armed or recording ends it. With an output running (`output/`), a
 * recording is the output's real picture and sound, a WebM file under
 * `recordings/` written by the browser's MediaRecorder. Without one (the
 * `output` setting `none`, or no browser), it is what played: a JSON-lines
 * file, one line per play-state change.
 * @module
 */
import type { Recording, StateUpdate } from "../protocol/state.ts";

/** Records the real output into a file (`output/output.ts`). */
export interface VideoSink {
  startRecording(path: string): void;
  stopRecording(): Promise<void>;
}

/** Writes recordings under `<dataDir>/recordings`. */
export class Recorder {
  #dataDir: string;
  #now: () => number;
  #file: Deno.FsFile | null = null;
  #startedAt = 0;
  #encoder = new TextEncoder();
  #video: () => VideoSink | null;
  /** The video recording in progress, if one is. */
  #sink: VideoSink | null = null;
  #finishing: Promise<void> = Promise.resolve();
  #log: (message: string) => void;
  state: Recording = { state: "idle", file: null, startedAt: null };

  /**
   * `now` gives milliseconds on the player's clock, for offsets in the log;
   * `video` the output to record when one runs.
   */
  constructor(
    dataDir: string,
    now: () => number,
    options: { video?: () => VideoSink | null; log?: (message: string) => void } = {},
  ) {
    this.#dataDir = dataDir;
    this.#now = now;
    this.#video = options.video ?? (() => null);
    this.#log = options.log ?? (() => {});
  }

  /** Resolves when the last video recording stopped is whole on disk (duration written). */
  finished(): Promise<void> {
    return this.#finishing;
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
    // The browser's recording ended with the run that made it: it cannot go on.
    if (!saved.file.endsWith(".jsonl")) return;
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
    if (this.#sink) this.stop();
    if (!this.#file) return;
    this.#write({ ms: Math.round(this.elapsedMs()), event: "recording-suspended" });
    this.#file.close();
    this.#file = null;
  }

  /** The output's recording ended without a toggle (its browser went away): idle. */
  lost(): void {
    if (!this.#sink) return;
    this.#sink = null;
    this.state = { ...this.state, state: "idle" };
  }

  /** Ends a recording in progress and closes its file. */
  stop(): void {
    if (this.#sink) {
      const sink = this.#sink;
      this.#sink = null;
      this.state = { ...this.state, state: "idle" };
      this.#finishing = this.#finishing.then(() => sink.stopRecording()).catch((error) =>
        this.#log(`The recording ${this.state.file} did not finish: ${error.message}`)
      );
      return;
    }
    if (!this.#file) return;
    this.#write({ ms: Math.round(this.#now() - this.#startedAt), event: "recording-stopped" });
    this.#file.close();
    this.#file = null;
    this.state = { ...this.state, state: "idle" };
  }

  #start(trigger: string): void {
    const wall = new Date();
    const name = `recordings/recording-${wall.toISOString().replace(/[:.]/g, "-")}`;
    Deno.mkdirSync(`${this.#dataDir}/recordings`, { recursive: true });
    const sink = this.#video();
    if (sink) {
      sink.startRecording(`${this.#dataDir}/${name}.webm`);
      this.#sink = sink;
      this.state = { state: "recording", file: `${name}.webm`, startedAt: wall.toISOString() };
      return;
    }
    const relative = `${name}.jsonl`;
    this.#file = Deno.openSync(`${this.#dataDir}/${relative}`, { create: true, append: true });
    this.#startedAt = this.#now();
    this.state = { state: "recording", file: relative, startedAt: wall.toISOString() };
    this.#write({ ms: 0, event: "recording-started", trigger, at: wall.toISOString() });
  }

  #write(line: Record<string, unknown>): void {
    this.#file!.writeSync(this.#encoder.encode(JSON.stringify(line) + "\n"));
  }
}

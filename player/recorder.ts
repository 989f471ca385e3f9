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
import { NO_RECORDING, type Recording, type StateUpdate } from "../protocol/state.ts";
import { type RecordingFigures, type RecordingOutcome, writeFailure } from "./output/recording.ts";

/** Records the real output into a file (`output/output.ts`, `output/recording.ts`). */
export interface VideoSink {
  /** Starts; `changed` gets the figures as they change (about once a second). */
  startRecording(path: string, changed: (figures: RecordingFigures) => void): void;
  /** Ends once the last chunk is written: what was recorded (null: nothing was being). */
  stopRecording(): Promise<RecordingOutcome | null>;
}

/** Writes recordings under `<dataDir>/recordings`. */
export class Recorder {
  #dataDir: string;
  #now: () => number;
  #wallNow: () => number;
  #namedAt: () => number;
  #file: Deno.FsFile | null = null;
  #startedAt = 0;
  #encoder = new TextEncoder();
  #video: () => VideoSink | null;
  /** The video recording in progress, if one is. */
  #sink: VideoSink | null = null;
  #finishing: Promise<void> = Promise.resolve();
  #log: (message: string) => void;
  #changed: () => void;
  /** Counts the video recordings started: figures of an earlier one are not taken. */
  #take = 0;
  state: Recording = NO_RECORDING;

  /**
   * `now` gives milliseconds on the player's clock, for offsets in the log;
   * `video` the output to record when one runs; `changed` is told when the
   * state changed without a toggle (figures, an outcome).
   */
  constructor(
    dataDir: string,
    now: () => number,
    options: {
      video?: () => VideoSink | null;
      log?: (message: string) => void;
      changed?: () => void;
      /** The machine's wall clock, Unix ms: a recording's `startedAt` (default `Date.now`). */
      wallNow?: () => number;
      /**
       * The time a recording is named by, Unix ms (default `wallNow`): a rig group's decision
       * time, so that every rig names it alike; `startedAt` stays this machine's wall time.
       */
      namedAt?: () => number;
    } = {},
  ) {
    this.#dataDir = dataDir;
    this.#now = now;
    this.#video = options.video ?? (() => null);
    this.#log = options.log ?? (() => {});
    this.#changed = options.changed ?? (() => {});
    this.#wallNow = options.wallNow ?? Date.now;
    this.#namedAt = options.namedAt ?? this.#wallNow;
  }

  /** Resolves when the last video recording stopped is whole on disk (duration written). */
  finished(): Promise<void> {
    return this.#finishing;
  }

  /**
   * Applies RECORD_TOGGLE; returns a one-line account. Stopping a video recording
   * answers once its last chunk is written, with what it holds, or why it failed.
   */
  toggle(mode: "now" | "next-trigger"): string | Promise<string> {
    if (this.state.state === "armed") {
      this.state = { ...this.state, state: "idle" };
      return "Recording disarmed";
    }
    if (this.state.state === "recording") {
      const file = this.state.file;
      if (this.#sink) return this.#stopVideo().then((outcome) => stoppedMessage(file, outcome));
      this.stop();
      // Its last line may not fit either: then it failed, and says why.
      return this.state.error
        ? `Recording failed: ${this.state.error}`
        : `Recording stopped: ${file}`;
    }
    if (mode === "next-trigger") {
      this.state = { ...NO_RECORDING, state: "armed" };
      return "Recording armed; it starts on the next Clip trigger";
    }
    this.#start("now");
    if (this.state.error) return `Recording failed: ${this.state.error}`;
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
  resume(
    saved: Pick<Recording, "state" | "file" | "startedAt"> & { ms: number },
    gapMs: number,
  ): void {
    if (saved.state === "armed") {
      this.state = { ...NO_RECORDING, state: "armed" };
      return;
    }
    if (saved.state !== "recording" || saved.file === null) return;
    if (!saved.file.endsWith(".jsonl")) {
      // The browser's recording ended with the run that made it: it cannot go on, and its
      // file keeps what was written until then (its duration in place, `webm_writer.ts`).
      const { file, startedAt } = saved;
      this.state = {
        ...NO_RECORDING,
        file,
        startedAt,
        bytes: fileSize(`${this.#dataDir}/${file}`),
        error:
          "The player stopped during this recording: the file keeps what was written until then",
      };
      return;
    }
    this.#file = Deno.openSync(`${this.#dataDir}/${saved.file}`, { create: true, append: true });
    this.#startedAt = this.#now() - saved.ms - gapMs;
    this.state = {
      ...NO_RECORDING,
      state: "recording",
      file: saved.file,
      startedAt: saved.startedAt,
    };
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
    this.#file?.close();
    this.#file = null;
  }

  /** The output's recording ended without a toggle (its browser went away): idle. */
  lost(outcome: RecordingOutcome): void {
    if (!this.#sink) return;
    this.#sink = null;
    this.#ended(this.#take, outcome);
  }

  /**
   * Ends a recording in progress and closes its file; a video recording's
   * figures and outcome land later (`finished`).
   */
  stop(): void {
    if (this.#sink) {
      void this.#stopVideo();
      return;
    }
    if (!this.#file) return;
    this.#write({ ms: Math.round(this.#now() - this.#startedAt), event: "recording-stopped" });
    this.#file?.close();
    this.#file = null;
    this.state = { ...this.state, state: "idle" };
  }

  /** Ends the video recording: idle at once, its outcome once its last chunk is written. */
  #stopVideo(): Promise<RecordingOutcome | null> {
    const sink = this.#sink!;
    const take = this.#take;
    this.#sink = null;
    this.state = { ...this.state, state: "idle" };
    const file = this.state.file;
    const outcome = this.#finishing.then(() => sink.stopRecording()).then((outcome) => {
      this.#ended(take, outcome);
      return outcome;
    }, (error) => {
      this.#log(`The recording ${file} did not finish: ${error.message}`);
      return null;
    });
    this.#finishing = outcome.then(() => {});
    return outcome;
  }

  /** A video recording ended: its last figures and error; a failed one's file is gone. */
  #ended(take: number, outcome: RecordingOutcome | null): void {
    if (take !== this.#take || !outcome) return;
    const { isFileKept, ...figures } = outcome;
    this.state = {
      ...this.state,
      ...figures,
      state: "idle",
      file: isFileKept ? this.state.file : null,
    };
    this.#changed();
  }

  #start(trigger: string): void {
    const wall = new Date(this.#wallNow());
    const named = new Date(this.#namedAt()).toISOString();
    const name = `recordings/recording-${named.replace(/[:.]/g, "-")}`;
    Deno.mkdirSync(`${this.#dataDir}/recordings`, { recursive: true });
    const sink = this.#video();
    const startedAt = wall.toISOString();
    if (sink) {
      const take = ++this.#take;
      const path = `${this.#dataDir}/${name}.webm`;
      // One recording at a time in the page: this one starts once the last one ended.
      this.#finishing = this.#finishing.then(() =>
        sink.startRecording(path, (figures) => {
          if (take !== this.#take || this.state.state !== "recording") return;
          this.state = { ...this.state, ...figures };
          this.#changed();
        })
      ).catch((error) => {
        // The file cannot be opened (a full disk, no permission): nothing records.
        const why = writeFailure(path, error);
        this.#log(`Cannot record into ${name}.webm: ${why}`);
        if (take !== this.#take || !this.#sink) return;
        this.#sink = null;
        this.state = {
          ...this.state,
          state: "idle",
          file: null,
          error: `Nothing was recorded: ${why}`,
        };
        this.#changed();
      });
      this.#sink = sink;
      this.state = { ...NO_RECORDING, state: "recording", file: `${name}.webm`, startedAt };
      return;
    }
    const relative = `${name}.jsonl`;
    this.#file = Deno.openSync(`${this.#dataDir}/${relative}`, { create: true, append: true });
    this.#startedAt = this.#now();
    this.state = { ...NO_RECORDING, state: "recording", file: relative, startedAt };
    this.#write({ ms: 0, event: "recording-started", trigger, at: wall.toISOString() });
  }

  /**
   * Appends one line. A line that cannot be written (a full disk) ends the recording there:
   * idle, its error says why, the file keeps the lines before.
   */
  #write(line: Record<string, unknown>): void {
    const bytes = this.#encoder.encode(JSON.stringify(line) + "\n");
    try {
      let at = 0;
      while (at < bytes.length) at += this.#file!.writeSync(bytes.subarray(at));
    } catch (error) {
      const ms = this.#now() - this.#startedAt;
      this.#file?.close();
      this.#file = null;
      const why = writeFailure(`${this.#dataDir}/${this.state.file}`, error);
      this.#log(`The recording ${this.state.file} failed: ${why}`);
      this.state = {
        ...this.state,
        state: "idle",
        error: `The recording failed at ${(ms / 1000).toFixed(1)} s: ${why}; ` +
          "the file keeps what was written until then",
      };
      this.#changed();
    }
  }
}

/** The stop's account: the file and what it holds, or why nothing was recorded. */
function stoppedMessage(file: string | null, state: RecordingOutcome | null): string {
  if (!state) return `Recording stopped: ${file}`;
  if (!state.isFileKept) return `Recording failed: ${state.error}; ${file} was not kept`;
  // It ended before the stop (a full disk): the stop does not say it went well.
  if (state.error) {
    return `Recording failed: ${state.error}; ${file} keeps ${state.seconds.toFixed(1)} s`;
  }
  return `Recording stopped: ${file} (${state.seconds.toFixed(1)} s, ${sizeText(state.bytes)}, ` +
    `${state.videoFrames} video frames of ${state.framesDrawn} drawn, ${state.framesMissed} missed)`;
}

/** `1.4 MB`, or `12 kB` below a megabyte. */
export function sizeText(bytes: number): string {
  return bytes >= 1_000_000
    ? `${(bytes / 1_000_000).toFixed(1)} MB`
    : `${Math.round(bytes / 1000)} kB`;
}

function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

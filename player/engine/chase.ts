/**
 * The timecode chase of one Project's active Song: each sample of incoming
 * code (`timecode.sample`) says where the Song should be (the code less the
 * Song's offset), and the chase moves the Song's transport there. It starts
 * the Song when the code runs, corrects drift past a frame by re-anchoring
 * (cues are not fired twice), seeks at once on a jump, lets the Song play on
 * over a dropout (freewheel) and pauses it at the code's last position when
 * the code stays away longer. Time is the player's clock; docs/midi.md,
 * "Timecode".
 * @module
 */
import type { Project } from "../../protocol/model.ts";
import {
  type ChaseStatus,
  formatTimecode,
  type FrameRate,
  NO_TIMECODE,
  TIMECODE_DEFAULTS,
  type TimecodeSampleParams,
  type TimecodeState,
  timecodeToSeconds,
} from "../../protocol/timecode.ts";
import type { Clock, TimerId } from "../clock.ts";
import { Refusal } from "../errors.ts";
import type { SongTransport } from "./song_transport.ts";

/** The chase settings of the active Song, resolved from the Song and its Project. */
export interface ChaseSettings {
  projectId: string;
  songId: string;
  /** Whether the Song follows the code. */
  chase: boolean;
  /** Seconds of code at the Song's position 0. */
  offset: number;
  /** Seconds the Song plays on after the last sample before it pauses. */
  freewheel: number;
}

/**
 * The chase settings of Song `songId` of `project` (its own, else the Project's); null: no Song.
 * @throws {Refusal} when the offset names a frame past the rate (a `project.json` edited by hand:
 * the edits refuse it)
 */
export function chaseSettings(project: Project, songId: string | null): ChaseSettings | null {
  const song = project.songs.find((s) => s.id === songId);
  if (!song) return null;
  const own = project.timecode ?? TIMECODE_DEFAULTS;
  const offset = song.timecode?.offset ?? own.offset;
  let seconds: number;
  try {
    seconds = timecodeToSeconds(offset, own.frameRate);
  } catch (error) {
    const edit = song.timecode?.offset
      ? `song.set_timecode of "${song.id}"`
      : "project.set_timecode";
    throw new Refusal(`Cannot chase: ${(error as Error).message}; set the offset with ${edit}`);
  }
  return {
    projectId: project.id,
    songId: song.id,
    chase: song.timecode?.chase ?? own.chase,
    offset: seconds,
    freewheel: own.freewheel,
  };
}

/** What the chase drives: the active Song's transport, through the engine (which reports). */
export interface ChaseHost {
  clock: Clock;
  /** The active Song's settings, or null when no Song is active. */
  settings(): ChaseSettings | null;
  /** The active Song's transport. */
  transport(): SongTransport | null;
  play(): void;
  pause(): void;
  /** A seek as an operator's: cues before `seconds` will not fire. */
  seek(seconds: number): void;
  /** A small correction: the position moves, the cues passed stay passed. */
  reanchor(seconds: number): void;
  /** Runs what fell due and sets the engine's timer again. */
  settle(): void;
  /** Told when the state changed, and at most once a second while code comes. */
  report(state: TimecodeState): void;
}

/** What a chase follows of a Project's engine (`ProjectEngine` is one). */
export interface ChasedEngine {
  readonly project: Project;
  readonly activeSongId: string | null;
  readonly songTransport: SongTransport | null;
  playSong(): void;
  pauseSong(): void;
  seekSong(seconds: number): void;
  settle(): void;
}

/** The chase of `engine`'s active Song, on `clock`, telling its state to `report`. */
export function engineChase(
  engine: ChasedEngine,
  clock: Clock,
  report: (state: TimecodeState) => void,
): Chase {
  return new Chase({
    clock,
    settings: () => chaseSettings(engine.project, engine.activeSongId),
    transport: () => engine.songTransport,
    play: () => engine.playSong(),
    pause: () => engine.pauseSong(),
    seek: (seconds) => engine.seekSong(seconds),
    reanchor: (seconds) => engine.songTransport?.reanchor(seconds, clock.now()),
    settle: () => engine.settle(),
    report,
  });
}

/** A change of more than this many seconds is a jump (a seek), not drift. */
export const JUMP_SECONDS = 0.5;
/** Without a sample for this many frames, the code has dropped out: the Song freewheels. */
const LATE_FRAMES = 4;
/** While code comes, the state (its last timecode) is reported at most this often, ms. */
const REPORT_MS = 1000;

/** The chase of one Project. */
export class Chase {
  #host: ChaseHost;
  #state: TimecodeState;
  #lateTimer: TimerId | null = null;
  #stopTimer: TimerId | null = null;
  /** The Song and position the last running sample meant. */
  #last: { songId: string; position: number } | null = null;
  #reportedAt = -Infinity;

  /** Nothing received yet. */
  constructor(host: ChaseHost) {
    this.#host = host;
    this.#state = NO_TIMECODE;
  }

  /** The state now. */
  get state(): TimecodeState {
    return this.#state;
  }

  /**
   * Follows one sample of code; answers the state after it. Running code
   * has moved on by the sample's age (the time since it was read), so a
   * sample that waited on its way does not set the Song back.
   */
  sample(sample: TimecodeSampleParams): TimecodeState {
    const settings = this.#host.settings();
    const moved = ((sample.age ?? 0) / 1000) *
      (sample.motion === "forward" ? 1 : sample.motion === "backward" ? -1 : 0);
    const position = settings ? sample.seconds + moved - settings.offset : null;
    const base = {
      projectId: settings?.projectId ?? null,
      songID: settings?.songId ?? null,
      timecode: formatTimecode(sample.seconds, sample.rate),
      rate: sample.rate,
      position,
      source: sample.source,
    };
    const transport = this.#host.transport();
    if (!settings || !settings.chase || !transport || position === null) {
      this.#cancel();
      this.#set({ ...base, status: "off" });
      return this.#state;
    }
    const status = this.#follow(sample, position, settings, transport);
    this.#set({ ...base, status });
    return this.#state;
  }

  /** Cancels the timers; the chase is no longer used. */
  dispose(): void {
    this.#cancel();
  }

  #follow(
    sample: TimecodeSampleParams,
    position: number,
    settings: ChaseSettings,
    transport: SongTransport,
  ): ChaseStatus {
    if (sample.motion === "stopped") {
      // The code stopped coming: play on until the freewheel runs out (timers set by the last sample).
      return this.#state.status === "locked" ? "freewheeling" : this.#state.status;
    }
    if (sample.motion !== "forward") return this.#locate(position, transport);
    const now = this.#host.clock.now();
    this.#last = { songId: settings.songId, position };
    // The dropout is counted from when the code was read.
    this.#arm(now - (sample.age ?? 0), sample.rate, settings);
    const isPast = transport.duration !== null && position >= transport.duration;
    if (position < 0 || isPast) {
      // Before the Song's start (a pre-roll), or after its end: the Song waits.
      if (transport.state === "playing" && position < 0) this.#pauseAt(0);
      return "waiting";
    }
    if (transport.state !== "playing") {
      this.#host.seek(position);
      this.#host.play();
    } else {
      const drift = position - transport.position(now);
      if (Math.abs(drift) > JUMP_SECONDS) this.#host.seek(position);
      else if (Math.abs(drift) > 1 / sample.rate) this.#host.reanchor(position);
    }
    this.#host.settle();
    return "locked";
  }

  /** A locate or backward code: the Song stands at the position the code names. */
  #locate(position: number, transport: SongTransport): ChaseStatus {
    this.#cancel();
    this.#last = null;
    if (transport.state === "playing") this.#host.pause();
    this.#host.seek(Math.max(0, position));
    this.#host.settle();
    return "waiting";
  }

  /** Sets the dropout timer (freewheel) and the stop timer (pause) from a sample at `now`. */
  #arm(now: number, rate: FrameRate, settings: ChaseSettings): void {
    this.#cancel();
    const { clock } = this.#host;
    const lateMs = LATE_FRAMES * 1000 / rate;
    this.#lateTimer = clock.setTimer(now + lateMs, () => {
      this.#lateTimer = null;
      if (this.#state.status === "locked") this.#set({ ...this.#state, status: "freewheeling" });
    });
    this.#stopTimer = clock.setTimer(now + Math.max(lateMs, settings.freewheel * 1000), () => {
      this.#stopTimer = null;
      this.#codeStopped();
    });
  }

  /** The freewheel ran out: the Song pauses where the code last was (not another one since selected). */
  #codeStopped(): void {
    const last = this.#last;
    this.#last = null;
    const settings = this.#host.settings();
    const isSame = last !== null && settings?.songId === last.songId && settings.chase;
    if (isSame && this.#host.transport()?.state === "playing") this.#pauseAt(last.position);
    this.#set({ ...this.#state, status: settings?.chase ? "waiting" : "off" });
  }

  #pauseAt(position: number): void {
    this.#host.reanchor(Math.max(0, position)); // first, so the pause reports this position
    this.#host.pause();
    this.#host.settle();
  }

  #cancel(): void {
    const { clock } = this.#host;
    if (this.#lateTimer !== null) clock.clearTimer(this.#lateTimer);
    if (this.#stopTimer !== null) clock.clearTimer(this.#stopTimer);
    this.#lateTimer = this.#stopTimer = null;
  }

  /** Takes `next`; reports it when its status or Song changed, or a second after the last report. */
  #set(next: TimecodeState): void {
    const before = this.#state;
    this.#state = next;
    const now = this.#host.clock.now();
    const isNews = before.status !== next.status || before.songID !== next.songID ||
      before.projectId !== next.projectId;
    if (isNews || now - this.#reportedAt >= REPORT_MS) {
      this.#reportedAt = now;
      this.#host.report(next);
    }
  }
}

/**
 * The transport of the active Song: its audio position, the timeline cues it
 * fires and the lyric line it shows. Like a Voice, the position is computed
 * from an anchor; `due()` reports what the Song passed since it was last asked.
 * @module
 */
import type { ClipState, Cue, Lyric, Song } from "../../protocol/model.ts";
import type { SongPlay } from "../../protocol/state.ts";

/** Something the Song reached. */
export type SongEvent =
  | { type: "cue"; cue: Cue }
  | { type: "lyric"; index: number; text: string }
  | { type: "end" };

/** Transport of one Song. */
export class SongTransport {
  readonly songId: string;
  state: ClipState = "stopped";
  readonly duration: number | null;
  #anchorPos = 0;
  #anchorTime = 0;
  #cues: Cue[];
  #lyrics: Lyric[];
  #nextCue = 0;
  #lyricIndex = -1;

  /** Builds a stopped transport at 0 for `song`; `duration` is its audio length, if any. */
  constructor(song: Song, duration: number | null) {
    this.songId = song.id;
    this.duration = duration;
    this.#cues = [...song.timeline].sort((a, b) => a.time - b.time);
    this.#lyrics = [...song.lyrics].sort((a, b) => a.time - b.time);
  }

  /** Position in seconds at clock time `now`. */
  position(now: number): number {
    if (this.state !== "playing") return this.#anchorPos;
    const p = this.#anchorPos + (now - this.#anchorTime) / 1000;
    return this.duration === null ? p : Math.min(p, this.duration);
  }

  /** Starts or resumes at the current position. */
  play(now: number): void {
    this.#anchorTime = now;
    this.state = "playing";
  }

  /** Pauses, keeping the position. */
  pause(now: number): void {
    this.#anchorPos = this.position(now);
    this.#anchorTime = now;
    this.state = "paused";
  }

  /** Stops and rewinds to 0. */
  stop(): void {
    this.state = "stopped";
    this.seek(0, 0);
  }

  /** Moves to `seconds`; cues before it will not fire, the lyric follows. */
  seek(seconds: number, now: number): void {
    this.#anchorPos = seconds;
    this.#anchorTime = now;
    const firstAfter = this.#cues.findIndex((c) => c.time >= seconds);
    this.#nextCue = firstAfter < 0 ? this.#cues.length : firstAfter;
    this.#lyricIndex = this.#lyricAt(seconds);
  }

  /**
   * Moves to `seconds` as a small correction (a chase's drift): the cue
   * cursor stays, so a cue passed does not fire again after a step back, and
   * one stepped over fires at the next `due`.
   */
  reanchor(seconds: number, now: number): void {
    this.#anchorPos = seconds;
    this.#anchorTime = now;
  }

  /**
   * Puts back a saved state: `position` held at clock time `anchorTime` (a
   * past time when the Song played on while the player was down); the cue and
   * lyric cursors follow from the position, as after a seek.
   */
  restore(state: ClipState, position: number, anchorTime: number): void {
    this.seek(position, anchorTime);
    this.state = state;
  }

  /** Everything reached up to `now`, in order; advances the cue and lyric cursors. */
  due(now: number): SongEvent[] {
    if (this.state !== "playing") return [];
    const pos = this.position(now);
    const events: SongEvent[] = [];
    while (this.#nextCue < this.#cues.length && this.#cues[this.#nextCue]!.time <= pos) {
      events.push({ type: "cue", cue: this.#cues[this.#nextCue++]! });
    }
    const lyric = this.#lyricAt(pos);
    if (lyric !== this.#lyricIndex) {
      this.#lyricIndex = lyric;
      events.push({ type: "lyric", index: lyric, text: this.#lyrics[lyric]?.text ?? "" });
    }
    if (this.duration !== null && pos >= this.duration) events.push({ type: "end" });
    return events;
  }

  /** Clock time of the next cue, lyric change or end; null when not playing. */
  nextEventTime(): number | null {
    if (this.state !== "playing") return null;
    const times = [
      this.#cues[this.#nextCue]?.time,
      this.#lyrics[this.#lyricIndex + 1]?.time,
      this.duration ?? undefined,
    ].filter((t): t is number => t !== undefined);
    if (times.length === 0) return null;
    const next = Math.max(Math.min(...times), this.#anchorPos);
    return this.#anchorTime + (next - this.#anchorPos) * 1000;
  }

  /** The wire form. */
  toPlay(now: number): SongPlay {
    return {
      songID: this.songId,
      state: this.state,
      position: this.position(now),
      duration: this.duration,
      lyricIndex: this.#lyricIndex,
    };
  }

  #lyricAt(pos: number): number {
    let index = -1;
    for (let i = 0; i < this.#lyrics.length && this.#lyrics[i]!.time <= pos; i++) index = i;
    return index;
  }
}

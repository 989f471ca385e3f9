/**
 * The active Song of one Project, its transport and the selected Clip:
 * selecting a Song or a Clip, and playing, pausing, stopping and seeking the
 * Song. Each change is reported as a `playstate` event; the Song's cues,
 * lyrics and end are the engine timer's (`engine_timer.ts`).
 * @module
 */
import type { ClipState, Song } from "../../protocol/model.ts";
import type { Clock } from "../clock.ts";
import { Refusal } from "../errors.ts";
import type { EngineEvents } from "./engine_events.ts";
import type { ProjectIndex } from "./project_index.ts";
import { SongTransport } from "./song_transport.ts";

/** What the deck needs from its engine. */
export interface DeckHost {
  clock: Clock;
  index: ProjectIndex;
  events: EngineEvents;
}

/** The active Song, its transport and the selection of one Project. */
export class SongDeck {
  #song: SongTransport | null = null;
  #activeSongId: string | null = null;
  #selectedClipId: string | null = null;
  #host: DeckHost;

  /** Nothing selected yet. */
  constructor(host: DeckHost) {
    this.#host = host;
  }

  /** The Song transport of the active Song. */
  get transport(): SongTransport | null {
    return this.#song;
  }

  /** Id of the active Song, if any. */
  get activeSongId(): string | null {
    return this.#activeSongId;
  }

  /** Id of the selected Clip, if any. */
  get selection(): string | null {
    return this.#selectedClipId;
  }

  /** The active Song, or a refusal. */
  activeSong(): Song {
    if (!this.#activeSongId) throw new Refusal("No Song is selected");
    return this.#host.index.song(this.#activeSongId);
  }

  /** Id of the selected Clip, or a refusal. */
  selectedClipId(): string {
    if (!this.#selectedClipId) throw new Refusal("No Clip is selected");
    return this.#selectedClipId;
  }

  /** Clears the active Song or the selection when the Project no longer has it. */
  dropMissing(): void {
    const index = this.#host.index;
    if (this.#activeSongId && !index.hasSong(this.#activeSongId)) {
      this.#activeSongId = null;
      this.#song = null;
    }
    if (this.#selectedClipId && !index.hasClip(this.#selectedClipId)) {
      this.#selectedClipId = null;
    }
  }

  /**
   * Makes `song` active, its first Clip selected, its transport stopped at 0
   * (the previous one stopped); reports nothing.
   */
  load(song: Song): void {
    if (this.#song && this.#song.state !== "stopped") this.#song.stop();
    const project = this.#host.index.project;
    const audio = project.files.find((f) => f.id === song.audioFileId)?.duration ?? null;
    const timelineEnd = song.timeline.length ? Math.max(...song.timeline.map((c) => c.time)) : null;
    this.#song = new SongTransport(song, audio ?? timelineEnd);
    this.#activeSongId = song.id;
    this.#selectedClipId = song.clips[0] ?? null;
  }

  /** Makes `songId` the active Song, its first Clip selected, its transport at 0. */
  selectSong(songId: string, options: { keepPlaying: boolean }): void {
    const wasPlaying = this.#song?.state === "playing";
    this.load(this.#host.index.song(songId));
    if (options.keepPlaying && wasPlaying) this.#song!.play(this.#host.clock.now());
    this.#selectionChanged();
    if (this.#song?.state === "playing") this.stateChanged("playing", "started");
  }

  /** Selects a Clip (and its Song, without stopping anything). */
  selectClip(clipId: string): void {
    const songId = this.#host.index.songOfClip(clipId);
    if (clipId === this.#selectedClipId && (!songId || songId === this.#activeSongId)) return;
    if (songId && songId !== this.#activeSongId) {
      this.load(this.#host.index.song(songId));
      if (this.#song && this.#song.state !== "stopped") this.#song.stop();
    }
    this.#selectedClipId = clipId;
    this.#selectionChanged();
  }

  /** Starts or resumes the active Song's transport; `lateMs` late, where it would be. */
  play(lateMs = 0): void {
    this.#require().play(this.#host.clock.now() - Math.max(0, lateMs));
    this.stateChanged("playing", "started");
  }

  /** Pauses the Song transport. */
  pause(): void {
    this.#require().pause(this.#host.clock.now());
    this.stateChanged("paused", "paused");
  }

  /** Stops and rewinds the Song transport. */
  stop(): void {
    this.#require().stop();
    this.stateChanged("stopped", "stopped");
  }

  /** Seeks the Song transport. */
  seek(seconds: number): void {
    const song = this.#require();
    song.seek(seconds, this.#host.clock.now());
    this.#host.events.playstate({ event: "song-seeked", songID: song.songId, position: seconds });
  }

  /**
   * Puts back a saved Song: `songId` active, its transport in `state` at
   * `position` as of clock time `anchorTime`; reports nothing.
   */
  restore(song: { songId: string; state: ClipState; position: number }, anchorTime: number): void {
    this.load(this.#host.index.song(song.songId));
    this.#song!.restore(song.state, song.position, anchorTime);
  }

  /** Puts back a saved selection; reports nothing. */
  restoreSelection(clipId: string | null): void {
    this.#selectedClipId = clipId;
  }

  /** Reports that the active Song's transport went to `newState` for `reason`. */
  stateChanged(newState: string, reason: string): void {
    this.#host.events.songStateChanged(this.#activeSongId, newState, reason);
  }

  #require(): SongTransport {
    if (!this.#song) throw new Refusal("No Song is selected");
    return this.#song;
  }

  #selectionChanged(): void {
    this.#host.events.selectionChanged(this.#activeSongId, this.#selectedClipId);
  }
}

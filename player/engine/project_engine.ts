/**
 * The transport of one Project: which Clips play, the selected Song and
 * Clip, the Song's audio and timeline, live Control and parameter values.
 * It owns one clock timer, always set to the next thing that can happen
 * (a Clip end, a cue, a lyric, a Song end or a position report).
 * @module
 */
import type { Clip, Project, Song } from "../../protocol/model.ts";
import type { ClipPlay, LiveValues, PlayState, StateUpdate } from "../../protocol/state.ts";
import type { Clock, TimerId } from "../clock.ts";
import { Refusal } from "../errors.ts";
import { SongTransport } from "./song_transport.ts";
import {
  endTimeOf,
  positionAt,
  reanchor,
  startPosition,
  velocityGain,
  type Voice,
} from "./voice.ts";

/** What the engine needs from its surroundings. */
export interface EngineHost {
  clock: Clock;
  /** Receives every state update the engine produces, in order. */
  emit(update: StateUpdate): void;
  /** Told whenever a Clip starts, so an armed recording can begin. */
  onClipStarted(projectId: string, clipId: string): void;
  /** Interval of `positions` reports while anything plays; 0 disables them. */
  positionIntervalMs: number;
}

/** Options for starting a Clip. */
export interface StartOptions {
  velocity?: number;
  /** Start at this position instead of the start for the Clip's direction. */
  from?: number;
  reason?: string;
}

/** A saved show state for `ProjectEngine.adopt`, its ids checked against the Project. */
export interface AdoptedState {
  song: { songId: string; state: "playing" | "paused" | "stopped"; position: number } | null;
  /** Absent: the selection that comes with the Song. */
  selectedClipId?: string | null;
  /** Voices as they were when saved; `anchorPos` is the position then. */
  voices: Omit<Voice, "anchorTime">[];
  live: LiveValues;
  /** How long ago (ms) the state held; playing items moved on meanwhile. */
  elapsedMs: number;
}

/** The transport of one Project. */
export class ProjectEngine {
  #project!: Project;
  #clipById = new Map<string, Clip>();
  #songById = new Map<string, Song>();
  #songOfClip = new Map<string, string>();
  #voices = new Map<string, Voice>();
  #song: SongTransport | null = null;
  #activeSongId: string | null = null;
  #selectedClipId: string | null = null;
  #live: LiveValues = { controls: {}, params: {} };
  #timer: TimerId | null = null;
  #lastReport = 0;
  #host: EngineHost;

  /** Builds the engine for `project`, its first Song selected and nothing playing. */
  constructor(project: Project, host: EngineHost) {
    this.#host = host;
    this.setProject(project);
    const first = project.songs[0];
    if (first) this.#selectSong(first);
  }

  /** The project document. */
  get project(): Project {
    return this.#project;
  }

  /** Live Control and parameter values. */
  get live(): LiveValues {
    return this.#live;
  }

  /** Replaces the document (after an edit or reload); drops what no longer exists. */
  setProject(project: Project): void {
    this.#project = project;
    this.#clipById = new Map(project.clips.map((c) => [c.id, c]));
    this.#songById = new Map(project.songs.map((s) => [s.id, s]));
    this.#songOfClip = new Map();
    for (const song of project.songs) {
      for (const id of song.clips) this.#songOfClip.set(id, song.id);
    }
    for (const id of [...this.#voices.keys()]) if (!this.#clipById.has(id)) this.#voices.delete(id);
    if (this.#activeSongId && !this.#songById.has(this.#activeSongId)) {
      this.#activeSongId = null;
      this.#song = null;
    }
    if (this.#selectedClipId && !this.#clipById.has(this.#selectedClipId)) {
      this.#selectedClipId = null;
    }
    if (this.#timer !== null) this.#schedule();
  }

  // ---- lookups --------------------------------------------------------------

  /** The Clip with `id`, or a refusal naming it. */
  clip(id: string): Clip {
    const clip = this.#clipById.get(id);
    if (!clip) throw new Refusal(`Clip "${id}" does not exist in project "${this.#project.id}"`);
    return clip;
  }

  /** The Song with `id`, or a refusal naming it. */
  song(id: string): Song {
    const song = this.#songById.get(id);
    if (!song) throw new Refusal(`Song "${id}" does not exist in project "${this.#project.id}"`);
    return song;
  }

  /** The active Song, or a refusal. */
  activeSong(): Song {
    if (!this.#activeSongId) throw new Refusal("No Song is selected");
    return this.song(this.#activeSongId);
  }

  /** Id of the selected Clip, or a refusal. */
  selectedClipId(): string {
    if (!this.#selectedClipId) throw new Refusal("No Clip is selected");
    return this.#selectedClipId;
  }

  /** Id of the active Song, if any. */
  get activeSongId(): string | null {
    return this.#activeSongId;
  }

  /** Id of the selected Clip, if any (no refusal). */
  get selection(): string | null {
    return this.#selectedClipId;
  }

  /** Index of the active Song in the Project, or -1. */
  activeSongIndex(): number {
    return this.#project.songs.findIndex((s) => s.id === this.#activeSongId);
  }

  /** The playing or paused voice of a Clip. */
  voice(clipId: string): Voice | undefined {
    return this.#voices.get(clipId);
  }

  /** All voices. */
  voices(): Voice[] {
    return [...this.#voices.values()];
  }

  /** The Song transport of the active Song. */
  get songTransport(): SongTransport | null {
    return this.#song;
  }

  /** The Song whose list holds the Clip, if any. */
  songOfClip(clipId: string): string | null {
    return this.#songOfClip.get(clipId) ?? null;
  }

  /** The background Clip: the active Song's, else the Project's first. */
  backgroundClipId(): string | null {
    const song = this.#activeSongId ? this.#songById.get(this.#activeSongId) : undefined;
    return song?.backgroundClipID ?? this.#project.backgroundClips[0] ?? null;
  }

  // ---- clip primitives ------------------------------------------------------

  /** Starts a Clip (from its start, or `from`); replaces a voice it had. */
  startClip(clipId: string, options: StartOptions = {}): void {
    const previous = this.#voices.get(clipId)?.state ?? "stopped";
    this.#putVoice(clipId, "playing", options);
    this.#clipChanged(clipId, previous, options.reason ?? "started");
    this.#host.onClipStarted(this.#project.id, clipId);
  }

  /** Stops a Clip; false if it was not playing or paused. */
  stopClip(clipId: string, reason = "stopped"): boolean {
    const voice = this.#voices.get(clipId);
    if (!voice) return false;
    this.#voices.delete(clipId);
    this.#clipChanged(clipId, voice.state, reason);
    return true;
  }

  /** Pauses a playing Clip; false if it was not playing. */
  pauseClip(clipId: string): boolean {
    const voice = this.#voices.get(clipId);
    if (voice?.state !== "playing") return false;
    reanchor(voice, this.#host.clock.now());
    voice.state = "paused";
    this.#clipChanged(clipId, "playing", "paused");
    return true;
  }

  /** Resumes a paused Clip; false if it was not paused. */
  resumeClip(clipId: string): boolean {
    const voice = this.#voices.get(clipId);
    if (voice?.state !== "paused") return false;
    voice.anchorTime = this.#host.clock.now();
    voice.state = "playing";
    this.#clipChanged(clipId, "paused", "resumed");
    this.#host.onClipStarted(this.#project.id, clipId);
    return true;
  }

  /** Moves a Clip to `seconds`; a stopped Clip is cued there, paused. */
  seekClip(clipId: string, seconds: number): void {
    const clip = this.clip(clipId);
    const now = this.#host.clock.now();
    const voice = this.#voices.get(clipId);
    if (!voice) {
      this.#putVoice(clipId, "paused", { from: Math.min(clip.duration, Math.max(0, seconds)) });
      this.#clipChanged(clipId, "stopped", "cued");
      return;
    }
    voice.anchorPos = Math.min(clip.duration, Math.max(0, seconds));
    voice.anchorTime = now;
    this.#emitPlaystate({ event: "clip-seeked", clipID: clipId, position: voice.anchorPos });
  }

  /** Changes a live voice's direction (the stored setting is the caller's). */
  redirectVoice(clipId: string, direction: "forward" | "backward"): void {
    const voice = this.#voices.get(clipId);
    if (!voice || voice.direction === direction) return;
    reanchor(voice, this.#host.clock.now());
    voice.direction = direction;
    this.#emitPlaystate({ event: "clip-direction-changed", clipID: clipId, direction });
  }

  // ---- song primitives ------------------------------------------------------

  /** Makes `songId` the active Song, its first Clip selected, its transport at 0. */
  selectSong(songId: string, options: { keepPlaying: boolean }): void {
    const wasPlaying = this.#song?.state === "playing";
    this.#selectSong(this.song(songId));
    if (options.keepPlaying && wasPlaying) this.#song!.play(this.#host.clock.now());
    this.#emitSelection();
    if (this.#song?.state === "playing") this.#songStateChanged("playing", "started");
  }

  /** Selects a Clip (and its Song, without stopping anything). */
  selectClip(clipId: string): void {
    const songId = this.songOfClip(clipId);
    if (clipId === this.#selectedClipId && (!songId || songId === this.#activeSongId)) return;
    if (songId && songId !== this.#activeSongId) {
      this.#selectSong(this.song(songId));
      if (this.#song && this.#song.state !== "stopped") this.#song.stop();
    }
    this.#selectedClipId = clipId;
    this.#emitSelection();
  }

  /** Starts or resumes the active Song's transport. */
  playSong(): void {
    const song = this.#requireSong();
    song.play(this.#host.clock.now());
    this.#songStateChanged("playing", "started");
  }

  /** Pauses the Song transport. */
  pauseSong(): void {
    this.#requireSong().pause(this.#host.clock.now());
    this.#songStateChanged("paused", "paused");
  }

  /** Stops and rewinds the Song transport. */
  stopSong(): void {
    this.#requireSong().stop();
    this.#songStateChanged("stopped", "stopped");
  }

  /** Seeks the Song transport. */
  seekSong(seconds: number): void {
    const song = this.#requireSong();
    song.seek(seconds, this.#host.clock.now());
    this.#emitPlaystate({ event: "song-seeked", songID: song.songId, position: seconds });
  }

  // ---- live values ----------------------------------------------------------

  /** Records a Control's last value. */
  setControlValue(controlId: string, value: number): void {
    this.#live.controls[controlId] = value;
    this.#host.emit({
      updateType: "playstate",
      projectId: this.#project.id,
      data: { event: "control-changed", controlID: controlId, value },
    });
  }

  /** Writes one clip parameter, unclamped; `speed` retimes a playing voice. */
  setParam(clipId: string, parameter: string, value: number): void {
    (this.#live.params[clipId] ??= {})[parameter] = value;
    const voice = this.#voices.get(clipId);
    if (parameter === "speed" && voice) {
      reanchor(voice, this.#host.clock.now());
      voice.speed = value;
      this.#schedule();
    }
    this.#host.emit({
      updateType: "clip",
      projectId: this.#project.id,
      data: { event: "param-changed", clipID: clipId, parameter, value },
    });
  }

  // ---- state ----------------------------------------------------------------

  /** The play state at the current clock reading. */
  playState(): PlayState {
    const now = this.#host.clock.now();
    const clips: ClipPlay[] = [];
    for (const v of this.#voices.values()) {
      clips.push({
        clipID: v.clipId,
        songID: v.songId,
        state: v.state,
        position: positionAt(v, now),
        duration: v.duration,
        direction: v.direction,
        loop: v.loop,
        speed: v.speed,
        velocity: v.velocity,
        gain: v.gain,
        held: v.held,
      });
    }
    return {
      projectId: this.#project.id,
      at: now,
      activeSongID: this.#activeSongId,
      selectedClipID: this.#selectedClipId,
      song: this.#song?.toPlay(now) ?? null,
      clips,
    };
  }

  /** Whether any Clip or the Song is playing. */
  isPlaying(): boolean {
    return this.#song?.state === "playing" || this.voices().some((v) => v.state === "playing");
  }

  /** Whether any Clip or the Song is paused. */
  isPaused(): boolean {
    return this.#song?.state === "paused" || this.voices().some((v) => v.state === "paused");
  }

  /**
   * Puts back a show state a stopped player saved (`live_snapshot.ts` checks
   * every id first). Playing items are anchored `elapsedMs` in the past, so
   * they continue as if the player had never stopped. Emits nothing: the
   * snapshot read next carries it. Call `settle()` after, so what fell due
   * meanwhile (ends, cues) happens.
   */
  adopt(state: AdoptedState): void {
    const now = this.#host.clock.now();
    const since = (playing: boolean) => playing ? now - state.elapsedMs : now;
    if (state.song) {
      this.#selectSong(this.song(state.song.songId));
      const { state: songState, position } = state.song;
      this.#song!.restore(songState, position, since(songState === "playing"));
    }
    if (state.selectedClipId !== undefined) this.#selectedClipId = state.selectedClipId;
    for (const voice of state.voices) {
      this.#voices.set(voice.clipId, { ...voice, anchorTime: since(voice.state === "playing") });
    }
    this.#live = state.live;
  }

  /** Cancels the timer; the engine is no longer used. */
  dispose(): void {
    if (this.#timer !== null) this.#host.clock.clearTimer(this.#timer);
    this.#timer = null;
  }

  /** Processes whatever is due now and sets the timer for the next thing. */
  settle(): void {
    this.#processDue();
    this.#schedule();
  }

  // ---- internals ------------------------------------------------------------

  #selectSong(song: Song): void {
    if (this.#song && this.#song.state !== "stopped") this.#song.stop();
    const audio = this.#project.files.find((f) => f.id === song.audioFileId)?.duration ?? null;
    const timelineEnd = song.timeline.length ? Math.max(...song.timeline.map((c) => c.time)) : null;
    this.#song = new SongTransport(song, audio ?? timelineEnd);
    this.#activeSongId = song.id;
    this.#selectedClipId = song.clips[0] ?? null;
  }

  /** Creates the voice of a Clip in `state`, replacing any it had. */
  #putVoice(clipId: string, state: Voice["state"], options: StartOptions): void {
    const clip = this.clip(clipId);
    const velocity = options.velocity ?? 127;
    this.#voices.set(clipId, {
      clipId,
      songId: this.songOfClip(clipId),
      state,
      anchorPos: options.from ?? startPosition(clip.direction, clip.duration),
      anchorTime: this.#host.clock.now(),
      duration: clip.duration,
      direction: clip.direction,
      loop: clip.loop && clip.launchMode !== "OneShot",
      speed: this.#live.params[clipId]?.speed ?? clip.options.speed,
      velocity,
      gain: velocityGain(velocity, clip.velocitySensitivity),
      held: state === "playing" && clip.launchMode === "Gate",
    });
  }

  #requireSong(): SongTransport {
    if (!this.#song) throw new Refusal("No Song is selected");
    return this.#song;
  }

  #clipChanged(clipId: string, previous: string, reason: string): void {
    const newState = this.#voices.get(clipId)?.state ?? "stopped";
    this.#emitPlaystate({
      event: "clip-play-state-changed",
      clipID: clipId,
      newState,
      previousState: previous,
      reason,
    });
  }

  #songStateChanged(newState: string, reason: string): void {
    this.#emitPlaystate({
      event: "song-play-state-changed",
      songID: this.#activeSongId,
      newState,
      reason,
    });
  }

  #emitSelection(): void {
    this.#emitPlaystate({
      event: "selection-changed",
      songID: this.#activeSongId,
      clipID: this.#selectedClipId,
    });
  }

  #emitPlaystate(fields: { event: string; [key: string]: unknown }): void {
    this.#host.emit({
      updateType: "playstate",
      projectId: this.#project.id,
      data: { ...fields, playstate: this.playState() },
    });
  }

  /** Handles ends, cues, lyrics and reports due at the current clock reading. */
  #processDue(): void {
    const now = this.#host.clock.now();
    for (const voice of [...this.#voices.values()]) {
      const end = endTimeOf(voice);
      if (end !== null && end <= now) this.stopClip(voice.clipId, "ended");
    }
    const song = this.#song;
    for (const event of song?.due(now) ?? []) this.#onSongEvent(song!, event);
    if (
      this.#host.positionIntervalMs > 0 && this.isPlaying() &&
      now - this.#lastReport >= this.#host.positionIntervalMs
    ) {
      this.#lastReport = now;
      this.#emitPlaystate({ event: "positions" });
    }
  }

  #onSongEvent(song: SongTransport, event: ReturnType<SongTransport["due"]>[number]): void {
    if (event.type === "end") {
      song.stop();
      this.#songStateChanged("stopped", "ended");
      return;
    }
    if (event.type === "lyric") {
      this.#emitPlaystate({
        event: "lyric-changed",
        songID: song.songId,
        index: event.index,
        text: event.text,
      });
      return;
    }
    const { cue } = event;
    if (!this.#clipById.has(cue.clipID)) return; // a cue whose Clip was deleted does nothing
    if (cue.action === "stop") this.stopClip(cue.clipID, "cue");
    else if (cue.action === "play" && this.#voices.get(cue.clipID)?.state === "playing") {
      // already playing: a play cue leaves it alone
    } else this.startClip(cue.clipID, { reason: "cue" });
    this.#emitPlaystate({
      event: "cue-fired",
      songID: song.songId,
      cueId: cue.id,
      clipID: cue.clipID,
      action: cue.action,
    });
  }

  #schedule(): void {
    if (this.#timer !== null) this.#host.clock.clearTimer(this.#timer);
    this.#timer = null;
    const times: number[] = [];
    for (const voice of this.#voices.values()) {
      const end = endTimeOf(voice);
      if (end !== null) times.push(end);
    }
    const songNext = this.#song?.nextEventTime();
    if (songNext !== null && songNext !== undefined) times.push(songNext);
    if (this.#host.positionIntervalMs > 0 && this.isPlaying()) {
      times.push(
        Math.max(this.#lastReport + this.#host.positionIntervalMs, this.#host.clock.now()),
      );
    }
    if (times.length === 0) return;
    this.#timer = this.#host.clock.setTimer(Math.min(...times), () => {
      this.#timer = null;
      this.settle();
    });
  }
}

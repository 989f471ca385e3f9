/**
 * The transport of one Project: which Clips play (`clip_voices.ts`), the
 * selected Song and Clip with the Song's audio and timeline (`song_deck.ts`),
 * live Control and parameter values, and one clock timer always set to the
 * next thing that can happen (`engine_timer.ts`). The engine composes these
 * parts over the document (`project_index.ts`) and sends their events
 * (`engine_events.ts`); callers see it alone.
 * @module
 */
import type { Clip, Project, Song } from "../../protocol/model.ts";
import type { LiveValues, PlayState, StateUpdate } from "../../protocol/state.ts";
import type { Clock } from "../clock.ts";
import { ClipVoices, type StartOptions } from "./clip_voices.ts";
import { EngineEvents } from "./engine_events.ts";
import { EngineTimer } from "./engine_timer.ts";
import { ProjectIndex } from "./project_index.ts";
import { SongDeck } from "./song_deck.ts";
import type { SongTransport } from "./song_transport.ts";
import type { Voice } from "./voice.ts";
import type { TimecodeSampleParams, TimecodeState } from "../../protocol/timecode.ts";
import { type Chase, engineChase } from "./chase.ts";
import { cross, type CrossingCause, Crossings, type CrossingView } from "./crossings.ts";

export type { StartOptions } from "./clip_voices.ts";

/** What the engine needs from its surroundings. */
export interface EngineHost {
  clock: Clock;
  /** Receives every state update the engine produces, in order. */
  emit(update: StateUpdate): void;
  /** Told whenever a Clip starts, so an armed recording can begin. */
  onClipStarted(projectId: string, clipId: string): void;
  /** Interval of `positions` reports while anything plays; 0 disables them. */
  positionIntervalMs: number;
  /** Told how the active Song chases timecode, when that changes (`chase.ts`). */
  onTimecode?(state: TimecodeState): void;
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
  #index: ProjectIndex;
  #voices: ClipVoices;
  #deck: SongDeck;
  #timer: EngineTimer;
  #live: LiveValues = { controls: {}, params: {} };
  #events: EngineEvents;
  #host: EngineHost;
  #chase: Chase | null = null;
  #crossings = new Crossings();

  /** Builds the engine for `project`, its first Song selected and nothing playing. */
  constructor(project: Project, host: EngineHost) {
    this.#host = host;
    const index = this.#index = new ProjectIndex(project);
    const { clock } = host;
    const events = this.#events = new EngineEvents({
      emit: (update) => host.emit(update),
      projectId: () => index.project.id,
      playState: () => this.playState(),
    });
    this.#voices = new ClipVoices({
      clock,
      index,
      events,
      liveSpeed: (clipId) => this.#live.params[clipId]?.speed,
      onClipStarted: (clipId) => host.onClipStarted(index.project.id, clipId),
    });
    this.#deck = new SongDeck({ clock, index, events });
    this.#timer = new EngineTimer({
      clock,
      positionIntervalMs: () => host.positionIntervalMs,
      index,
      voices: this.#voices,
      deck: this.#deck,
      crossings: this.#crossings,
      events,
      isPlaying: () => this.isPlaying(),
    });
    const first = project.songs[0];
    if (first) this.#deck.load(first);
  }

  /** The project document. */
  get project(): Project {
    return this.#index.project;
  }

  /** Live Control and parameter values. */
  get live(): LiveValues {
    return this.#live;
  }

  /** Replaces the document (after an edit or reload); drops what no longer exists. */
  setProject(project: Project): void {
    this.#index.set(project);
    this.#voices.dropMissing();
    this.#deck.dropMissing();
    if (this.#timer.isSet) this.#timer.schedule();
  }

  // ---- lookups --------------------------------------------------------------

  /** The Clip with `id`, or a refusal naming it. */
  clip(id: string): Clip {
    return this.#index.clip(id);
  }

  /** The Song with `id`, or a refusal naming it. */
  song(id: string): Song {
    return this.#index.song(id);
  }

  /** The active Song, or a refusal. */
  activeSong(): Song {
    return this.#deck.activeSong();
  }

  /** Id of the selected Clip, or a refusal. */
  selectedClipId(): string {
    return this.#deck.selectedClipId();
  }

  /** Id of the active Song, if any. */
  get activeSongId(): string | null {
    return this.#deck.activeSongId;
  }

  /** Id of the selected Clip, if any (no refusal). */
  get selection(): string | null {
    return this.#deck.selection;
  }

  /** Index of the active Song in the Project, or -1. */
  activeSongIndex(): number {
    return this.project.songs.findIndex((s) => s.id === this.activeSongId);
  }

  /** The playing or paused voice of a Clip. */
  voice(clipId: string): Voice | undefined {
    return this.#voices.get(clipId);
  }

  /** All voices. */
  voices(): Voice[] {
    return this.#voices.all();
  }

  /** The Song transport of the active Song. */
  get songTransport(): SongTransport | null {
    return this.#deck.transport;
  }

  /** The Song whose list holds the Clip, if any. */
  songOfClip(clipId: string): string | null {
    return this.#index.songOfClip(clipId);
  }

  /** The background Clip: the active Song's, else the Project's first. */
  backgroundClipId(): string | null {
    const id = this.activeSongId;
    const song = id ? this.#index.findSong(id) : undefined;
    return song?.backgroundClipID ?? this.project.backgroundClips[0] ?? null;
  }

  // ---- clip primitives ------------------------------------------------------

  /**
   * Runs `run` (a Clip replacing another, a Song change, `STOP_ALL_CLIPS_IN`); when it stopped
   * Clips and a transition applies, they cross to what it started (`crossings.ts`).
   */
  cross<T>(cause: CrossingCause, run: () => T): T {
    const result = cross(
      {
        project: this.project,
        now: () => this.#host.clock.now(),
        activeSongId: () => this.activeSongId,
        voices: () => this.#voices.all(),
        crossings: this.#crossings,
        told: (event, crossing) => this.#events.transitionChanged(event, crossing),
      },
      cause,
      run,
    );
    this.#timer.schedule();
    return result;
  }

  /** The crossing under way now, or null. */
  crossing(): CrossingView | null {
    return this.#crossings.view(this.#host.clock.now());
  }

  /** Starts a Clip (from its start, or `from`); replaces a voice it had. */
  startClip(clipId: string, options: StartOptions = {}): void {
    this.#voices.start(clipId, options);
  }

  /** Stops a Clip; false if it was not playing or paused. */
  stopClip(clipId: string, reason = "stopped"): boolean {
    return this.#voices.stop(clipId, reason);
  }

  /** Pauses a playing Clip; false if it was not playing. */
  pauseClip(clipId: string): boolean {
    return this.#voices.pause(clipId);
  }

  /** Resumes a paused Clip (`lateMs` late: where it would be); false if it was not paused. */
  resumeClip(clipId: string, lateMs = 0): boolean {
    return this.#voices.resume(clipId, lateMs);
  }

  /** Moves a Clip to `seconds`; a stopped Clip is cued there, paused. */
  seekClip(clipId: string, seconds: number): void {
    this.#voices.seek(clipId, seconds);
  }

  /** Changes a live voice's direction (the stored setting is the caller's). */
  redirectVoice(clipId: string, direction: "forward" | "backward"): void {
    this.#voices.redirect(clipId, direction);
  }

  // ---- song primitives ------------------------------------------------------

  /** Makes `songId` the active Song, its first Clip selected, its transport at 0. */
  selectSong(songId: string, options: { keepPlaying: boolean }): void {
    this.#deck.selectSong(songId, options);
  }

  /** Selects a Clip (and its Song, without stopping anything). */
  selectClip(clipId: string): void {
    this.#deck.selectClip(clipId);
  }

  /** Starts or resumes the active Song's transport (`lateMs` late: where it would be). */
  playSong(lateMs = 0): void {
    this.#deck.play(lateMs);
  }

  /** Pauses the Song transport. */
  pauseSong(): void {
    this.#deck.pause();
  }

  /** Stops and rewinds the Song transport. */
  stopSong(): void {
    this.#deck.stop();
  }

  /** Seeks the Song transport. */
  seekSong(seconds: number): void {
    this.#deck.seek(seconds);
  }

  // ---- live values ----------------------------------------------------------

  /** Records a Control's last value. */
  setControlValue(controlId: string, value: number): void {
    this.#live.controls[controlId] = value;
    this.#events.controlChanged(controlId, value);
  }

  /** Writes one clip parameter, unclamped; `speed` retimes a playing voice. */
  setParam(clipId: string, parameter: string, value: number): void {
    (this.#live.params[clipId] ??= {})[parameter] = value;
    if (parameter === "speed" && this.#voices.setSpeed(clipId, value)) this.#timer.schedule();
    this.#events.paramChanged(clipId, parameter, value);
  }

  // ---- state ----------------------------------------------------------------

  /** The play state at the current clock reading. */
  playState(): PlayState {
    const now = this.#host.clock.now();
    return {
      projectId: this.project.id,
      at: now,
      activeSongID: this.#deck.activeSongId,
      selectedClipID: this.#deck.selection,
      song: this.#deck.transport?.toPlay(now) ?? null,
      clips: this.#voices.plays(now),
    };
  }

  /** Whether any Clip or the Song is playing. */
  isPlaying(): boolean {
    return this.songTransport?.state === "playing" || this.#voices.hasAny("playing");
  }

  /** Whether any Clip or the Song is paused. */
  isPaused(): boolean {
    return this.songTransport?.state === "paused" || this.#voices.hasAny("paused");
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
    if (state.song) this.#deck.restore(state.song, since(state.song.state === "playing"));
    if (state.selectedClipId !== undefined) this.#deck.restoreSelection(state.selectedClipId);
    this.#voices.adopt(state.voices, since);
    this.#live = state.live;
  }

  /** Follows one sample of incoming timecode with the active Song (`chase.ts`). */
  timecode(sample: TimecodeSampleParams): TimecodeState {
    this.#chase ??= engineChase(this, this.#host.clock, (state) => this.#host.onTimecode?.(state));
    return this.#chase.sample(sample);
  }

  /** Cancels the timers; the engine is no longer used. */
  dispose(): void {
    this.#timer.cancel();
    this.#crossings.cut();
    this.#chase?.dispose();
  }

  /** Processes whatever is due now and sets the timer for the next thing. */
  settle(): void {
    this.#timer.settle();
  }
}

/**
 * The voices of one Project's Clips: which play or are paused, where, and how
 * fast; starting, stopping, pausing, resuming, seeking and turning them. Each
 * change is reported as a `playstate` event; the engine's timer asks when the
 * next voice ends (`endTimes`).
 * @module
 */
import { VELOCITY } from "../../protocol/action_rules.ts";
import type { ClipPlay } from "../../protocol/state.ts";
import type { Clock } from "../clock.ts";
import type { EngineEvents } from "./engine_events.ts";
import type { ProjectIndex } from "./project_index.ts";
import {
  endTimeOf,
  positionAt,
  reanchor,
  startPosition,
  velocityGain,
  type Voice,
} from "./voice.ts";

/** Options for starting a Clip. */
export interface StartOptions {
  velocity?: number;
  /** Start at this position instead of the start for the Clip's direction. */
  from?: number;
  reason?: string;
  /**
   * Started this late, ms (an action run after its time, `player/actions/late.ts`): the Clip
   * begins where it would be had it started then (lateness times speed, in its direction).
   */
  lateMs?: number | undefined;
}

/** What the voices need from their engine. */
export interface VoicesHost {
  clock: Clock;
  index: ProjectIndex;
  events: EngineEvents;
  /** The live `speed` of a Clip, when one was set. */
  liveSpeed(clipId: string): number | undefined;
  /** Told whenever a Clip starts or resumes, so an armed recording can begin. */
  onClipStarted(clipId: string): void;
}

/** The playing and paused Clips of one Project. */
export class ClipVoices {
  #voices = new Map<string, Voice>();
  #host: VoicesHost;

  /** No voice yet. */
  constructor(host: VoicesHost) {
    this.#host = host;
  }

  /** The playing or paused voice of a Clip. */
  get(clipId: string): Voice | undefined {
    return this.#voices.get(clipId);
  }

  /** All voices. */
  all(): Voice[] {
    return [...this.#voices.values()];
  }

  /** Drops the voices of Clips the Project no longer has. */
  dropMissing(): void {
    for (const id of [...this.#voices.keys()]) {
      if (!this.#host.index.hasClip(id)) this.#voices.delete(id);
    }
  }

  /** Starts a Clip (from its start, or `from`); replaces a voice it had. */
  start(clipId: string, options: StartOptions = {}): void {
    const previous = this.#voices.get(clipId)?.state ?? "stopped";
    this.#put(clipId, "playing", options);
    this.#catchUp(this.#voices.get(clipId)!, options.lateMs ?? 0);
    this.#changed(clipId, previous, options.reason ?? "started");
    this.#host.onClipStarted(clipId);
  }

  /** Stops a Clip; false if it was not playing or paused. */
  stop(clipId: string, reason = "stopped"): boolean {
    const voice = this.#voices.get(clipId);
    if (!voice) return false;
    this.#voices.delete(clipId);
    this.#changed(clipId, voice.state, reason);
    return true;
  }

  /** Pauses a playing Clip; false if it was not playing. */
  pause(clipId: string): boolean {
    const voice = this.#voices.get(clipId);
    if (voice?.state !== "playing") return false;
    reanchor(voice, this.#host.clock.now());
    voice.state = "paused";
    this.#changed(clipId, "playing", "paused");
    return true;
  }

  /** Resumes a paused Clip (`lateMs` late: where it would be); false if it was not paused. */
  resume(clipId: string, lateMs = 0): boolean {
    const voice = this.#voices.get(clipId);
    if (voice?.state !== "paused") return false;
    voice.anchorTime = this.#host.clock.now();
    voice.state = "playing";
    this.#catchUp(voice, lateMs);
    this.#changed(clipId, "paused", "resumed");
    this.#host.onClipStarted(clipId);
    return true;
  }

  /** Moves a Clip to `seconds`; a stopped Clip is cued there, paused. */
  seek(clipId: string, seconds: number): void {
    const clip = this.#host.index.clip(clipId);
    const now = this.#host.clock.now();
    const voice = this.#voices.get(clipId);
    if (!voice) {
      this.#put(clipId, "paused", { from: Math.min(clip.duration, Math.max(0, seconds)) });
      this.#changed(clipId, "stopped", "cued");
      return;
    }
    voice.anchorPos = Math.min(clip.duration, Math.max(0, seconds));
    voice.anchorTime = now;
    this.#host.events.playstate({
      event: "clip-seeked",
      clipID: clipId,
      position: voice.anchorPos,
    });
  }

  /** Changes a live voice's direction (the stored setting is the caller's). */
  redirect(clipId: string, direction: "forward" | "backward"): void {
    const voice = this.#voices.get(clipId);
    if (!voice || voice.direction === direction) return;
    reanchor(voice, this.#host.clock.now());
    voice.direction = direction;
    this.#host.events.playstate({ event: "clip-direction-changed", clipID: clipId, direction });
  }

  /** Retimes a Clip's voice to `speed` from now; false when it has none. */
  setSpeed(clipId: string, speed: number): boolean {
    const voice = this.#voices.get(clipId);
    if (!voice) return false;
    reanchor(voice, this.#host.clock.now());
    voice.speed = speed;
    return true;
  }

  /** Puts back saved voices, each anchored at `since(isPlaying)` (`ProjectEngine.adopt`). */
  adopt(voices: readonly Omit<Voice, "anchorTime">[], since: (isPlaying: boolean) => number): void {
    for (const voice of voices) {
      this.#voices.set(voice.clipId, { ...voice, anchorTime: since(voice.state === "playing") });
    }
  }

  /** Stops, as "ended", every voice whose end is due at `now`. */
  endDue(now: number): void {
    for (const voice of [...this.#voices.values()]) {
      const end = endTimeOf(voice);
      if (end !== null && end <= now) this.stop(voice.clipId, "ended");
    }
  }

  /** The clock times at which playing voices end. */
  endTimes(): number[] {
    const times: number[] = [];
    for (const voice of this.#voices.values()) {
      const end = endTimeOf(voice);
      if (end !== null) times.push(end);
    }
    return times;
  }

  /** Whether any voice is in `state`. */
  hasAny(state: Voice["state"]): boolean {
    return this.all().some((v) => v.state === state);
  }

  /** The wire form of every voice at clock time `now`. */
  plays(now: number): ClipPlay[] {
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
    return clips;
  }

  /** Creates the voice of a Clip in `state`, replacing any it had. */
  #put(clipId: string, state: Voice["state"], options: StartOptions): void {
    const clip = this.#host.index.clip(clipId);
    const velocity = options.velocity ?? VELOCITY.default;
    this.#voices.set(clipId, {
      clipId,
      songId: this.#host.index.songOfClip(clipId),
      state,
      anchorPos: options.from ?? startPosition(clip.direction, clip.duration),
      anchorTime: this.#host.clock.now(),
      duration: clip.duration,
      direction: clip.direction,
      loop: clip.loop && clip.launchMode !== "OneShot",
      speed: this.#host.liveSpeed(clipId) ?? clip.options.speed,
      velocity,
      gain: velocityGain(velocity, clip.velocitySensitivity),
      held: state === "playing" && clip.launchMode === "Gate",
    });
  }

  /** Moves a voice that just began playing to where it would be had it begun `lateMs` earlier. */
  #catchUp(voice: Voice, lateMs: number): void {
    if (!(lateMs > 0)) return;
    const now = voice.anchorTime;
    voice.anchorTime = now - lateMs;
    reanchor(voice, now);
  }

  #changed(clipId: string, previous: string, reason: string): void {
    const newState = this.#voices.get(clipId)?.state ?? "stopped";
    this.#host.events.clipChanged(clipId, { previous, newState }, reason);
  }
}

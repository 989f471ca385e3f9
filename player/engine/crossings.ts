/**
 * Crossings: a Clip replacing another, a Song change or `STOP_ALL_CLIPS_IN` drawn through a
 * transition preset over its duration, on the engine's clock. The outgoing voices leave the
 * play state at once (their Clips are stopped, as with a cut) but keep drawing, kept here,
 * until progress reaches 1; then the crossing ends. One crossing at a time: a new one cuts
 * the one under way, which ends then (`transition-ended`), its outgoing voices with it (they
 * are not carried into the new crossing: its outgoing picture is what played when it began).
 * @module
 */
import type { CrossingCause, Project, Transition } from "../../protocol/model.ts";
import type { ClipPlay } from "../../protocol/state.ts";
import { positionAt, type Voice } from "./voice.ts";

export type { CrossingCause };

/** A crossing under way, as the render state reads it (`ProjectEngine.crossing`). */
export interface CrossingView {
  cause: CrossingCause;
  transition: Transition;
  /** Player clock (ms) at which it began. */
  start: number;
  /** 0 to 1 at the clock reading asked for. */
  progress: number;
  /** The outgoing Clips, as they would play now: drawn only in the outgoing picture. */
  outgoing: ClipPlay[];
  /** Clips that started with the crossing: drawn only in the incoming picture. */
  incoming: string[];
}

interface Crossing {
  cause: CrossingCause;
  transition: Transition;
  start: number;
  outgoing: Voice[];
  incoming: string[];
}

/**
 * The transition a crossing of `cause` goes through: the incoming Clip's (a replacement), the
 * active Song's, else the Project's default; null: a cut.
 */
export function transitionFor(
  project: Project,
  cause: CrossingCause,
  songId: string | null,
  incomingClipId: string | undefined,
): Transition | null {
  const clip = cause === "clip" && incomingClipId
    ? project.clips.find((c) => c.id === incomingClipId)
    : undefined;
  const song = project.songs.find((s) => s.id === songId);
  return clip?.options.transition ?? song?.transition ?? project.transition ?? null;
}

/** The crossing of one engine. */
export class Crossings {
  #current: Crossing | null = null;

  /** Begins a crossing at `now`; answers the one under way it cut, if any. */
  begin(crossing: Crossing): Crossing | null {
    const cut = this.#current;
    this.#current = { ...crossing, outgoing: crossing.outgoing.map((v) => ({ ...v })) };
    return cut;
  }

  /** Clock time at which the crossing under way ends, or null. */
  endTime(): number | null {
    const c = this.#current;
    return c ? c.start + c.transition.duration * 1000 : null;
  }

  /** Ends the crossing when its end is due at `now`; answers it when it ended. */
  endDue(now: number): Crossing | null {
    const end = this.endTime();
    if (end === null || end > now) return null;
    const ended = this.#current;
    this.#current = null;
    return ended;
  }

  /** Drops the crossing (a reload of the document, a dispose); answers whether one was. */
  cut(): boolean {
    const had = this.#current !== null;
    this.#current = null;
    return had;
  }

  /** The crossing under way at `now`, or null. */
  view(now: number): CrossingView | null {
    const c = this.#current;
    if (!c) return null;
    const ms = c.transition.duration * 1000;
    return {
      cause: c.cause,
      transition: c.transition,
      start: c.start,
      progress: Math.min(1, Math.max(0, (now - c.start) / ms)),
      outgoing: c.outgoing.map((v) => ({
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
      })),
      incoming: [...c.incoming],
    };
  }
}

/** What `cross` needs from its engine. */
export interface CrossHost {
  project: Project;
  now(): number;
  activeSongId(): string | null;
  voices(): Voice[];
  crossings: Crossings;
  /** Told that a crossing began, or ended (here: cut by a new one). */
  told(
    event: "transition-started" | "transition-ended",
    crossing: { cause: CrossingCause; transition: Transition },
  ): void;
}

/**
 * Runs `run` (what stops and starts Clips) and, when it stopped some Clips and a transition
 * applies (`transitionFor`), begins a crossing from them to what it started.
 */
export function cross<T>(host: CrossHost, cause: CrossingCause, run: () => T): T {
  const before = host.voices().map((v) => ({ ...v }));
  const result = run();
  const now = host.now();
  const after = new Set(host.voices().map((v) => v.clipId));
  const outgoing = before.filter((v) => !after.has(v.clipId));
  const had = new Set(before.map((v) => v.clipId));
  const incoming = [...after].filter((id) => !had.has(id));
  const transition = transitionFor(host.project, cause, host.activeSongId(), incoming[0]);
  if (!transition || outgoing.length === 0) return result;
  const cut = host.crossings.begin({ cause, transition, start: now, outgoing, incoming });
  if (cut) host.told("transition-ended", cut);
  host.told("transition-started", host.crossings.view(now)!);
  return result;
}

/**
 * The events out of an engine: every state update it produces, in the
 * shapes clients read (`playstate` events carry the play state at the
 * moment of the change; Control and parameter changes their value only).
 * @module
 */
import type { PlayState, StateUpdate } from "../../protocol/state.ts";

/** The fields of a `playstate` event, before the play state is added. */
export type PlaystateFields = { event: string; [key: string]: unknown };

/** Where the events go and what they carry. */
export interface EventSink {
  /** Receives every state update, in order. */
  emit(update: StateUpdate): void;
  /** The id of the Project the events are of. */
  projectId(): string;
  /** The play state at the current clock reading. */
  playState(): PlayState;
}

/** Builds and sends the state updates of one engine. */
export class EngineEvents {
  #sink: EventSink;

  /** Events into `sink`. */
  constructor(sink: EventSink) {
    this.#sink = sink;
  }

  /** A `playstate` event with the play state as it is now. */
  playstate(fields: PlaystateFields): void {
    this.#sink.emit({
      updateType: "playstate",
      projectId: this.#sink.projectId(),
      data: { ...fields, playstate: this.#sink.playState() },
    });
  }

  /** A Clip went from `previous` to `newState` for `reason`. */
  clipChanged(
    clipId: string,
    states: { previous: string; newState: string },
    reason: string,
  ): void {
    this.playstate({
      event: "clip-play-state-changed",
      clipID: clipId,
      newState: states.newState,
      previousState: states.previous,
      reason,
    });
  }

  /** The Song transport of `songId` went to `newState` for `reason`. */
  songStateChanged(songId: string | null, newState: string, reason: string): void {
    this.playstate({ event: "song-play-state-changed", songID: songId, newState, reason });
  }

  /** The active Song or the selected Clip changed. */
  selectionChanged(songId: string | null, clipId: string | null): void {
    this.playstate({ event: "selection-changed", songID: songId, clipID: clipId });
  }

  /** A crossing through a transition preset began or ended (`crossings.ts`). */
  transitionChanged(
    event: "transition-started" | "transition-ended",
    crossing: { cause: string; transition: { presetId: string; duration: number } },
  ): void {
    this.playstate({
      event,
      cause: crossing.cause,
      presetId: crossing.transition.presetId,
      duration: crossing.transition.duration,
    });
  }

  /** A Control took `value`. */
  controlChanged(controlId: string, value: number): void {
    this.#sink.emit({
      updateType: "playstate",
      projectId: this.#sink.projectId(),
      data: { event: "control-changed", controlID: controlId, value },
    });
  }

  /** A clip parameter took `value`. */
  paramChanged(clipId: string, parameter: string, value: number): void {
    this.#sink.emit({
      updateType: "clip",
      projectId: this.#sink.projectId(),
      data: { event: "param-changed", clipID: clipId, parameter, value },
    });
  }
}

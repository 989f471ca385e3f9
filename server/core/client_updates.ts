/**
 * The player's updates as clients get them. The player stamps each play
 * state with its clock (`at`) and keeps the Controls' values apart (`live`);
 * clients get one play state everywhere, the one `GET .../playstate`
 * answers: positions as they are, Controls included. So a client that keeps
 * the last play state it got (the web remote's faders) never loses a field.
 * @module
 */
import type { PlayState, SnapshotView, StateUpdate } from "../../protocol/state.ts";
import { playStateAt } from "../../protocol/positions.ts";
import type { ReadModel } from "./read_model.ts";
import { playStateView } from "./views.ts";

/** The play state of a Project as clients see it, positions at the player's time `now`. */
function clientPlayState(model: ReadModel, state: PlayState, now: number) {
  return playStateView(playStateAt(state, now), model.live(state.projectId).controls);
}

/** The whole state as a `full` update carries it; null before the player's first snapshot. */
export function snapshotView(model: ReadModel): SnapshotView | null {
  const snapshot = model.snapshot();
  if (!snapshot) return null;
  const now = snapshot.now;
  return {
    ...snapshot,
    playstates: snapshot.playstates.map((s) => clientPlayState(model, s, now)),
  };
}

/**
 * `update`, already applied to `model`, as clients get it: a play state it
 * carries becomes the client's play state, a `full` update's snapshot the
 * client's snapshot; anything else is passed on as it is.
 */
export function clientUpdate(model: ReadModel, update: StateUpdate): StateUpdate {
  const { data } = update;
  if (update.updateType === "playstate" && data.playstate) {
    const playstate = clientPlayState(model, data.playstate as PlayState, model.playerNow());
    return { ...update, data: { ...data, playstate } };
  }
  if (update.updateType === "project" && data.event === "project-opened") {
    // The player's live values of the Project are in the client's play state (`controls`).
    const { live: _live, ...rest } = data;
    const playstate = clientPlayState(model, data.playstate as PlayState, model.playerNow());
    return { ...update, data: { ...rest, playstate } };
  }
  if (update.updateType === "full" && data.state) {
    return { ...update, data: { ...data, state: snapshotView(model) } };
  }
  return update;
}

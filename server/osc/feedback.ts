/**
 * Feedback: state changes as typed OSC messages a desk binds to faders and
 * buttons (a Control's value as a float, a Clip's state, the current Song,
 * output level, mute, recording). Built from the core's update batches, and
 * from the read model for the current values a new subscriber gets at once.
 * @module
 */
import type { AppState, PlayStateView, StateUpdate, UpdateType } from "../../protocol/state.ts";
import type { ReadModel } from "../core/mod.ts";
import { FRACTION_RANGE } from "../../protocol/action_rules.ts";

/** One typed argument of a feedback message. */
export type FeedbackArg =
  | { type: "float"; value: number }
  | { type: "integer"; value: number }
  | { type: "string"; value: string };

/** One feedback message, with what a subscription filters it by. */
export interface Feedback {
  address: string;
  args: FeedbackArg[];
  updateType: UpdateType;
  /** The Project it is about; null for the app (output, mute, recording). */
  projectId: string | null;
}

/** Every feedback address, for docs/osc.md (a test checks each is documented). */
export const FEEDBACK_ADDRESSES: ReadonlyArray<{ address: string; args: string; about: string }> = [
  { address: "/project/active", args: "s", about: "The active Project's id" },
  { address: "/control/{A-Z}", args: "f", about: "A Control's value" },
  { address: "/param/clip:{clipID}/{name}", args: "f", about: "A parameter written by SET_PARAM" },
  {
    address: "/clip/{clipID}/state",
    args: "s",
    about: "`playing`, `paused` or `stopped`",
  },
  { address: "/clip/selected", args: "s", about: "The selected Clip's id, empty for none" },
  { address: "/song/current", args: "s", about: "The active Song's id, empty for none" },
  {
    address: "/song/current/index",
    args: "i",
    about: "The active Song's position (from 0; -1 for none)",
  },
  { address: "/song/state", args: "s", about: "The active Song's transport state" },
  { address: "/song/position", args: "f", about: "The active Song's position, seconds" },
  { address: "/output/level", args: "f", about: `Master output level ${FRACTION_RANGE}` },
  { address: "/mute", args: "i", about: "1 muted, 0 not" },
  { address: "/fullscreen", args: "i", about: "1 full screen, 0 not" },
  { address: "/record", args: "i", about: "1 recording (or armed), 0 idle" },
  { address: "/record/state", args: "s", about: "`idle`, `armed` or `recording`" },
];

/** What feedback reads of a play state: the read model's and an update's (`PlayStateView`) alike. */
type PlayState = Pick<PlayStateView, "projectId" | "activeSongID" | "selectedClipID" | "song">;

const f = (value: number) => ({ type: "float" as const, value });
const i = (value: number) => ({ type: "integer" as const, value });
const s = (value: string) => ({ type: "string" as const, value });

function songIndex(model: ReadModel, projectId: string, songId: string | null): number {
  if (songId === null) return -1;
  return model.project(projectId)?.songs.findIndex((song) => song.id === songId) ?? -1;
}

function selection(model: ReadModel, state: PlayState): Feedback[] {
  const pid = state.projectId;
  return [
    { address: "/song/current", args: [s(state.activeSongID ?? "")] },
    {
      address: "/song/current/index",
      args: [i(songIndex(model, pid, state.activeSongID))],
    },
    { address: "/clip/selected", args: [s(state.selectedClipID ?? "")] },
  ].map((m) => ({ ...m, updateType: "playstate" as const, projectId: pid }));
}

function songState(state: PlayState): Feedback[] {
  const song = state.song;
  const of = (address: string, arg: FeedbackArg): Feedback => ({
    address,
    args: [arg],
    updateType: "playstate",
    projectId: state.projectId,
  });
  return [
    of("/song/state", s(song?.state ?? "stopped")),
    of("/song/position", f(song?.position ?? 0)),
  ];
}

function app(appState: Pick<AppState, "volume" | "muted">, full?: AppState): Feedback[] {
  const list: Array<[string, FeedbackArg]> = [
    ["/output/level", f(appState.volume)],
    ["/mute", i(appState.muted ? 1 : 0)],
  ];
  if (full) {
    list.push(
      ["/fullscreen", i(full.fullScreen ? 1 : 0)],
      ["/record", i(full.recording.state === "idle" ? 0 : 1)],
      ["/record/state", s(full.recording.state)],
    );
  }
  return list.map(([address, arg]) => ({
    address,
    args: [arg],
    updateType: full ? "appState" : "volume",
    projectId: null,
  }));
}

/** The current values of everything a subscriber to `projectId` can bind, from the read model. */
export function currentFeedback(model: ReadModel, projectId: string | null): Feedback[] {
  const out: Feedback[] = [];
  const pid = projectId ?? model.activeProjectId;
  out.push({
    address: "/project/active",
    args: [s(model.activeProjectId ?? "")],
    updateType: "project",
    projectId: null,
  });
  if (pid) {
    const live = model.live(pid);
    for (const [letter, value] of Object.entries(live.controls).sort()) {
      out.push({
        address: `/control/${letter}`,
        args: [f(value)],
        updateType: "playstate",
        projectId: pid,
      });
    }
    const state = model.playstate(pid);
    if (state) {
      out.push(...selection(model, state), ...songState(state));
      for (const clip of state.clips) {
        out.push({
          address: `/clip/${clip.clipID}/state`,
          args: [s(clip.state)],
          updateType: "playstate",
          projectId: pid,
        });
      }
    }
  }
  const appState = model.appState;
  if (appState) out.push(...app(appState, appState));
  return out;
}

/**
 * The feedback of a batch of updates. A `full` update, or a change of the
 * active Project, gives `null`: every subscriber then gets its current values again.
 */
export function batchFeedback(
  model: ReadModel,
  updates: readonly StateUpdate[],
): Feedback[] | null {
  const out: Feedback[] = [];
  for (const update of updates) {
    const { data } = update;
    const pid = update.projectId;
    switch (update.updateType) {
      case "full":
        return null;
      case "project":
        if (data.event === "active-project-changed") return null;
        break;
      case "volume":
        out.push(...app({ volume: data.level as number, muted: data.muted as boolean }));
        break;
      case "appState":
        out.push(...app(data.appState as AppState, data.appState as AppState));
        break;
      case "clip":
        if (data.event === "param-changed" && pid) {
          out.push({
            address: `/param/clip:${data.clipID}/${data.parameter}`,
            args: [f(data.value as number)],
            updateType: "clip",
            projectId: pid,
          });
        }
        break;
      case "playstate":
        if (pid) out.push(...playstateFeedback(model, pid, update));
        break;
    }
  }
  // One message per address: the last value of the batch (a mute is a volume and an appState update).
  const last = new Map(out.map((m, i) => [`${m.projectId}|${m.address}`, i]));
  return out.filter((m, i) => last.get(`${m.projectId}|${m.address}`) === i);
}

function playstateFeedback(model: ReadModel, pid: string, update: StateUpdate): Feedback[] {
  const { data } = update;
  const state = data.playstate as PlayStateView | undefined;
  const of = (address: string, arg: FeedbackArg): Feedback => ({
    address,
    args: [arg],
    updateType: "playstate",
    projectId: pid,
  });
  switch (data.event) {
    case "control-changed":
      return [of(`/control/${data.controlID}`, f(data.value as number))];
    case "clip-play-state-changed":
      return [of(`/clip/${data.clipID}/state`, s(data.newState as string))];
    case "song-play-state-changed":
    case "song-seeked":
    case "positions":
      return state ? songState(state) : [];
    case "selection-changed":
      return state ? [...selection(model, state), ...songState(state)] : [];
    default:
      return [];
  }
}

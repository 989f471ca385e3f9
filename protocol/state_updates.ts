/**
 * The state updates in detail: for each update type, the `data` of each
 * event, exactly (strict: an unknown or missing field fails). `StateUpdate`
 * (state.ts) is the envelope the code passes around; `StateUpdateDetail`
 * is what a test checks a live update against. These are the updates as
 * clients get them: the player sends the same updates with its own play
 * state (`PlayState`, stamped with its clock) and `Snapshot`; the core turns
 * them into `PlayStateView` and `SnapshotView` before any transport sees them.
 * @module
 */
import { z } from "zod";
import {
  Clip,
  ClipState,
  CrossingCause,
  CueAction,
  Direction,
  Preset,
  Project,
  Song,
} from "./model.ts";
import { LibraryEntry } from "./library.ts";
import { exact } from "./exact.ts";
import { AppState, ImportProgress, PlayStateView, SnapshotView } from "./state.ts";

/** An update of one type, its `data` one of `events`. */
function updateOf<T extends z.ZodType>(updateType: string, projectId: z.ZodType, data: T) {
  return z.strictObject({ updateType: z.literal(updateType), projectId, data });
}

/** `data` of a `playstate` update that carries the play state after it, as `GET .../playstate` answers it. */
function withPlayState<S extends z.ZodRawShape>(event: string, shape: S) {
  return z.strictObject({ event: z.literal(event), ...shape, playstate: PlayStateView });
}

const Revision = z.number().int();

/** A crossing through a transition preset (docs/presets.md "Transitions"). */
const CROSSING = {
  cause: CrossingCause,
  presetId: z.string(),
  duration: z.number(),
};

/** A `full` update: the whole state (`player-ready`, `reloaded`, `requested`, `resync`). */
export const FullUpdate = updateOf(
  "full",
  z.null(),
  z.strictObject({ event: z.string(), state: SnapshotView }),
);

/** An `appState` update: the app state after the change `event` names. */
export const AppStateUpdate = updateOf(
  "appState",
  z.null(),
  z.strictObject({ event: z.string(), appState: AppState }),
);

/** A `volume` update: the output level and mute after a change. */
export const VolumeUpdate = updateOf(
  "volume",
  z.null(),
  z.strictObject({ event: z.string(), level: z.number(), muted: z.boolean() }),
);

/** A `playstate` update, by event. */
export const PlaystateUpdate = updateOf(
  "playstate",
  z.string(),
  z.discriminatedUnion("event", [
    withPlayState("clip-play-state-changed", {
      clipID: z.string(),
      newState: ClipState,
      previousState: ClipState,
      reason: z.string(),
    }),
    withPlayState("song-play-state-changed", {
      songID: z.string().nullable(),
      newState: ClipState,
      reason: z.string(),
    }),
    withPlayState("selection-changed", {
      songID: z.string().nullable(),
      clipID: z.string().nullable(),
    }),
    withPlayState("clip-seeked", { clipID: z.string(), position: z.number() }),
    withPlayState("clip-direction-changed", { clipID: z.string(), direction: Direction }),
    withPlayState("song-seeked", { songID: z.string(), position: z.number() }),
    withPlayState("lyric-changed", {
      songID: z.string(),
      index: z.number().int(),
      text: z.string(),
    }),
    withPlayState("cue-fired", {
      songID: z.string(),
      cueId: z.string(),
      clipID: z.string(),
      action: CueAction,
    }),
    withPlayState("positions", {}),
    withPlayState("transition-started", CROSSING),
    withPlayState("transition-ended", CROSSING),
    z.strictObject({
      event: z.literal("control-changed"),
      controlID: z.string(),
      value: z.number(),
    }),
  ]),
);

/** A `clip` update: a Clip changed or removed by an edit, or a live parameter written. */
export const ClipUpdate = updateOf(
  "clip",
  z.string(),
  z.discriminatedUnion("event", [
    z.strictObject({
      event: z.literal("clip-changed"),
      clipID: z.string(),
      clip: exact(Clip),
      revision: Revision,
    }),
    z.strictObject({ event: z.literal("clip-removed"), clipID: z.string(), revision: Revision }),
    z.strictObject({
      event: z.literal("param-changed"),
      clipID: z.string(),
      parameter: z.string(),
      value: z.number(),
    }),
  ]),
);

/** A `song` update: a Song changed (with its position) or removed by an edit. */
export const SongUpdate = updateOf(
  "song",
  z.string(),
  z.discriminatedUnion("event", [
    z.strictObject({
      event: z.literal("song-changed"),
      songID: z.string(),
      song: exact(Song),
      position: z.number().int(),
      revision: Revision,
    }),
    z.strictObject({ event: z.literal("song-removed"), songID: z.string(), revision: Revision }),
  ]),
);

/** A `presets` update: the whole preset list after an edit changed some. */
export const PresetsUpdate = updateOf(
  "presets",
  z.null(),
  z.strictObject({
    event: z.literal("presets-changed"),
    changed: z.array(z.string()),
    presets: z.array(exact(Preset)),
  }),
);

/**
 * A `project` update: an edit's patch, the progress of an import or upload, or a change of the
 * library (a Project opened, created, duplicated, imported or restored; closed or deleted; the
 * active Project chosen), each with the library after it. `projectId` is null only for
 * `active-project-changed` when no Project is active any more.
 */
export const ProjectUpdate = updateOf(
  "project",
  z.string().nullable(),
  z.discriminatedUnion("event", [
    z.strictObject({
      event: z.literal("project-opened"),
      reason: z.enum(["created", "duplicated", "imported", "restored", "opened"]),
      project: exact(Project),
      playstate: PlayStateView,
      library: z.array(LibraryEntry),
    }),
    z.strictObject({
      event: z.literal("project-closed"),
      reason: z.enum(["closed", "deleted", "replaced"]),
      library: z.array(LibraryEntry),
    }),
    z.strictObject({
      event: z.literal("active-project-changed"),
      activeProjectId: z.string().nullable(),
    }),
    z.strictObject({
      event: z.literal("project-edited"),
      revision: Revision,
      edits: z.array(z.string()),
      patch: z.record(z.string(), z.unknown()),
    }),
    ImportProgress,
    z.strictObject({
      event: z.literal("upload-progress"),
      uploadId: z.string(),
      name: z.string(),
      bytes: z.number(),
      totalBytes: z.number().nullable(),
      done: z.boolean(),
      error: z.string().optional(),
    }),
  ]),
);

/** Any state update, its `data` checked exactly against its type and event. */
export const StateUpdateDetail = z.discriminatedUnion("updateType", [
  FullUpdate,
  AppStateUpdate,
  VolumeUpdate,
  PlaystateUpdate,
  ClipUpdate,
  SongUpdate,
  PresetsUpdate,
  ProjectUpdate,
]);

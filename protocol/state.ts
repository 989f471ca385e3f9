/**
 * Runtime state the player reports: play states, app state, cameras and the
 * snapshot answered by `state.get`, plus the state updates it pushes.
 * Declared once as zod schemas (strict: the wire shape exactly); the types
 * are inferred from them. The service's answers reuse these schemas.
 * @module
 */
import { z } from "zod";
import { ClipState, Direction, Preset, PresetKind, Project } from "./model.ts";
import { exact } from "./exact.ts";
import { TimecodeState } from "./timecode.ts";
import { OutputRegion } from "./region.ts";
import { DataProblem, LibraryEntry } from "./library.ts";
import { FRACTION_RANGE, VELOCITY_RANGE, velocitySchema } from "./action_rules.ts";

/** One Clip that is playing or paused. Stopped Clips are absent. */
export const ClipPlay = z.strictObject({
  clipID: z.string(),
  songID: z.string().nullable().describe(
    "The Song whose list holds the Clip, or null for a background-only Clip",
  ),
  state: ClipState.exclude(["stopped"]),
  position: z.number().describe("Seconds from the start of the media"),
  duration: z.number(),
  direction: Direction,
  loop: z.boolean(),
  speed: z.number().describe(
    "Playback speed factor; positions move at this many seconds per second",
  ),
  velocity: velocitySchema().describe(`Trigger velocity ${VELOCITY_RANGE}`),
  gain: z.number().describe(
    `Level factor from velocity and the Clip's Velocity Sensitivity, ${FRACTION_RANGE}`,
  ),
  held: z.boolean().describe("True while a Gate Clip is held"),
});

/** Transport state of the selected Song (its audio and timeline). */
export const SongPlay = z.strictObject({
  songID: z.string(),
  state: ClipState,
  position: z.number(),
  duration: z.number().nullable().describe(
    "Seconds of audio, or of the timeline when the Song has no audio; null if open-ended",
  ),
  lyricIndex: z.number().int().describe("Index of the current lyric line, or -1 before the first"),
});

/** Per-project play state: what plays, where, in which direction. */
export const PlayState = z.strictObject({
  projectId: z.string(),
  at: z.number().describe("Player clock (ms) at which the positions held; see `playStateAt`"),
  activeSongID: z.string().nullable(),
  selectedClipID: z.string().nullable(),
  song: SongPlay.nullable(),
  clips: z.array(ClipPlay),
});

/**
 * The play state as every client sees it, on every way out (a `playstate`
 * update, a `full` update, OSC, MCP and `GET .../playstate`): the player's
 * play state without its clock stamp (positions hold at the moment it was
 * sent), with the Controls' values. One schema and one content, so a client
 * that keeps the last one it got never loses a field another way carries.
 */
export const PlayStateView = PlayState.omit({ at: true }).extend({
  controls: z.record(z.string(), z.number()).describe("Last value sent to each Control, by letter"),
});

/** Live values set by SET_CONTROL and SET_PARAM; not saved with the project. */
export const LiveValues = z.strictObject({
  controls: z.record(z.string(), z.number()).describe("Last value sent to each Control, by letter"),
  params: z.record(z.string(), z.record(z.string(), z.number())).describe(
    "Parameter overrides by clip id, then parameter name",
  ),
});

/**
 * Recording state per the spec's state table, with the figures of the recording in progress,
 * else of the last one ended (all 0 and null before the first; a log recording, without an
 * output, has no video figures). `docs/output.md` says how each is counted.
 */
export const Recording = z.strictObject({
  state: z.enum(["idle", "armed", "recording"]),
  file: z.string().nullable().describe(
    "Path of the file being written (or last written), relative to the data dir; a failed recording that left no file still names the file it would have been",
  ),
  startedAt: z.string().nullable(),
  bytes: z.number().int().describe("Bytes in the file"),
  seconds: z.number().describe("Seconds the file plays (its last frame's time)"),
  videoFrames: z.number().int().describe("Video frames in the file"),
  framesDrawn: z.number().int().describe("Frames the output page drew while recording"),
  framesMissed: z.number().int().describe(
    "Frames the output page could not draw while recording (it was late)",
  ),
  noPictureSince: z.string().nullable().describe(
    "Since when (ISO time) no picture reached the recording in progress, once that lasted 2 s; null while pictures come",
  ),
  error: z.string().nullable().describe(
    "Why the last recording failed or ended early (nothing was recorded, its browser went away, the player stopped, the disk of its folder filled: named, with what to free), or null",
  ),
});

/** The recording state before any recording: idle, every figure 0. */
export const NO_RECORDING: Recording = {
  state: "idle",
  file: null,
  startedAt: null,
  bytes: 0,
  seconds: 0,
  videoFrames: 0,
  framesDrawn: 0,
  framesMissed: 0,
  noPictureSince: null,
  error: null,
};

/** The editor window state set by OPEN_EDITOR. */
export const EditorState = z.strictObject({
  kind: PresetKind,
  presetId: z.string(),
  openedAt: z.string(),
  preset: exact(Preset).describe("The preset as the editor shows it: edits to it show here"),
  updatedAt: z.string().nullable().describe(
    "When an edit last changed the open preset; null until one does",
  ),
  shown: z.boolean().describe(
    "Whether the editor window is open on the show machine (a page in the output's browser); false while it opens, and with no output running",
  ),
});

/**
 * How the output draws (`docs/output.md`): the scale of its picture, lowered while the
 * machine cannot keep up and raised again when it can. Changed only when the scale changes.
 */
export const OutputDrawing = z.strictObject({
  renderScale: z.number().describe(
    "Scale the output draws its picture at: 1 the display's size, lower (0.75, 0.5, 0.35) while the machine cannot keep up",
  ),
  reason: z.string().nullable().describe(
    "Why the scale is below 1 (the frames a second the page drew); null at 1",
  ),
});

/** Application-level state (`appState` updates; projectId null). */
export const AppState = z.strictObject({
  fullScreen: z.boolean(),
  muted: z.boolean(),
  volume: z.number().describe(`Master output level ${FRACTION_RANGE}`),
  recording: Recording,
  editor: EditorState.nullable(),
  windowReloads: z.number().int().describe("How many times PANIC reloaded the windows"),
  lastReloadAt: z.string().nullable(),
  output: OutputDrawing,
  outputDisplay: z.string().nullable().describe(
    "The display the output is on, by name or index (`OUTPUT_DISPLAY`, or the `outputDisplay` setting at start); null: the primary",
  ),
  /** Absent from an older player: the whole canvas. */
  outputRegion: OutputRegion.optional().describe(
    "The region of the canvas this machine's output shows, with its blend edges (`OUTPUT_REGION`, or the `outputRegion` setting at start); x 0, y 0, width 1, height 1 and no edges: the whole canvas",
  ),
  /** How the active Song chases timecode (protocol 1.9; absent from an older player). */
  timecode: TimecodeState.optional(),
});

/** A video input device. */
export const Camera = z.strictObject({
  deviceId: z.string(),
  label: z.string(),
  isDefault: z.boolean(),
});

/** What the player's plan allows. */
export const Entitlements = z.strictObject({ apiAccess: z.boolean() });

/** Everything the server's read model holds; the answer to `state.get`. */
export const Snapshot = z.strictObject({
  player: z.strictObject({ name: z.string(), version: z.string() }),
  now: z.number().describe("Player clock (ms) when the snapshot was taken"),
  entitlements: Entitlements,
  activeProjectId: z.string().nullable(),
  projects: z.array(exact(Project)),
  playstates: z.array(PlayState),
  live: z.record(z.string(), LiveValues),
  appState: AppState,
  presets: z.array(exact(Preset)),
  cameras: z.array(Camera),
  /** Every Project on disk with its state (open ones included); `protocol/library.ts`. */
  library: z.array(LibraryEntry).default([]),
  /** The files of the data dir found damaged at start (`protocol/library.ts`). */
  problems: z.array(DataProblem).default([]),
});

/** The whole state as clients get it in a `full` update: the snapshot with each play state as clients see it. */
export const SnapshotView = Snapshot.extend({ playstates: z.array(PlayStateView) });

/** The eight update types of spec section 6. */
export const UpdateType = z.enum([
  "project",
  "playstate",
  "clip",
  "song",
  "volume",
  "appState",
  "presets",
  "full",
]);

/**
 * `data` of the `project` update `import-progress`: one file of a `file.import`
 * on its way into the Project's `media/`. `jobId` names the job from its first
 * report to its last; `done` ends it, with the new file's `fileId` when it was
 * imported and `error` when it failed.
 */
export const ImportProgress = z.strictObject({
  event: z.literal("import-progress"),
  jobId: z.string(),
  fileId: z.string().describe("The id the file gets (final once `done` without `error`)"),
  name: z.string().describe('The name asked for (the stored name may gain " (2)")'),
  bytes: z.number(),
  totalBytes: z.number(),
  done: z.boolean(),
  error: z.string().optional(),
});

/**
 * One state update in the wire shape. `data.event` names what happened; its
 * other fields depend on the event (`state_updates.ts` declares them).
 */
export const StateUpdate = z.strictObject({
  updateType: UpdateType,
  projectId: z.string().nullable(),
  data: z.looseObject({ event: z.string() }),
});

/** Derived types. */
export type ClipPlay = z.infer<typeof ClipPlay>;
export type SongPlay = z.infer<typeof SongPlay>;
export type PlayState = z.infer<typeof PlayState>;
export type PlayStateView = z.infer<typeof PlayStateView>;
export type LiveValues = z.infer<typeof LiveValues>;
export type Recording = z.infer<typeof Recording>;
export type EditorState = z.infer<typeof EditorState>;
export type AppState = z.infer<typeof AppState>;
export type OutputDrawing = z.infer<typeof OutputDrawing>;
export type Camera = z.infer<typeof Camera>;
export type Entitlements = z.infer<typeof Entitlements>;
export type Snapshot = z.infer<typeof Snapshot>;
export type SnapshotView = z.infer<typeof SnapshotView>;
export type UpdateType = z.infer<typeof UpdateType>;
export type ImportProgress = z.infer<typeof ImportProgress>;
export type StateUpdate = z.infer<typeof StateUpdate>;

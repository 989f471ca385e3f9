/**
 * Runtime state the player reports: play states, app state, cameras and the
 * snapshot answered by `state.get`, plus the state updates it pushes.
 * @module
 */
import type { ClipState, Direction, Preset, Project } from "./model.ts";

/** One Clip that is playing or paused. Stopped Clips are absent. */
export interface ClipPlay {
  clipID: string;
  /** The Song whose list holds the Clip, or null for a background-only Clip. */
  songID: string | null;
  state: Exclude<ClipState, "stopped">;
  /** Seconds from the start of the media. */
  position: number;
  duration: number;
  direction: Direction;
  loop: boolean;
  /** Playback speed factor; positions move at this many seconds per second. */
  speed: number;
  /** Trigger velocity 0-127. */
  velocity: number;
  /** Level factor from velocity and the Clip's Velocity Sensitivity, 0.0-1.0. */
  gain: number;
  /** True while a Gate Clip is held. */
  held: boolean;
}

/** Transport state of the selected Song (its audio and timeline). */
export interface SongPlay {
  songID: string;
  state: ClipState;
  position: number;
  /** Seconds of audio, or of the timeline when the Song has no audio; null if open-ended. */
  duration: number | null;
  /** Index of the current lyric line, or -1 before the first. */
  lyricIndex: number;
}

/** Per-project play state: what plays, where, in which direction. */
export interface PlayState {
  projectId: string;
  /** Player clock (ms) at which the positions held; see `playStateAt`. */
  at: number;
  activeSongID: string | null;
  selectedClipID: string | null;
  song: SongPlay | null;
  clips: ClipPlay[];
}

/** Live values set by SET_CONTROL and SET_PARAM; not saved with the project. */
export interface LiveValues {
  /** Last value sent to each Control, by letter. */
  controls: Record<string, number>;
  /** Parameter overrides by clip id, then parameter name. */
  params: Record<string, Record<string, number>>;
}

/** Recording state per the spec's state table. */
export interface Recording {
  state: "idle" | "armed" | "recording";
  /** Path of the file being written (or last written), relative to the data dir. */
  file: string | null;
  startedAt: string | null;
}

/** The editor window state set by OPEN_EDITOR. */
export interface EditorState {
  kind: "effect" | "visualizer";
  presetId: string;
  openedAt: string;
  /** The preset as the editor shows it: edits to it are reflected here. */
  preset: Preset;
  /** When an edit last changed the open preset; null until one does. */
  updatedAt: string | null;
}

/** Application-level state (`appState` updates; projectId null). */
export interface AppState {
  fullScreen: boolean;
  muted: boolean;
  /** Master output level 0.0-1.0. */
  volume: number;
  recording: Recording;
  editor: EditorState | null;
  /** How many times PANIC reloaded the windows, and when last. */
  windowReloads: number;
  lastReloadAt: string | null;
}

/** A video input device. */
export interface Camera {
  deviceId: string;
  label: string;
  isDefault: boolean;
}

/** What the player's plan allows. */
export interface Entitlements {
  apiAccess: boolean;
}

/** Everything the server's read model holds; the answer to `state.get`. */
export interface Snapshot {
  player: { name: string; version: string };
  /** Player clock (ms) when the snapshot was taken. */
  now: number;
  entitlements: Entitlements;
  activeProjectId: string | null;
  projects: Project[];
  playstates: PlayState[];
  live: Record<string, LiveValues>;
  appState: AppState;
  presets: Preset[];
  cameras: Camera[];
}

/** The eight update types of spec section 6. */
export type UpdateType =
  | "project"
  | "playstate"
  | "clip"
  | "song"
  | "volume"
  | "appState"
  | "presets"
  | "full";

/**
 * `data` of the `project` update `import-progress`: one file of a `file.import`
 * on its way into the Project's `media/`. `jobId` names the job from its first
 * report to its last; `done` ends it, with the new file's `fileId` when it was
 * imported and `error` when it failed.
 */
export type ImportProgress = {
  event: "import-progress";
  jobId: string;
  /** The id the file gets (final once `done` without `error`). */
  fileId: string;
  /** The name asked for (the stored name may gain " (2)"). */
  name: string;
  bytes: number;
  totalBytes: number;
  done: boolean;
  error?: string;
};

/** One state update in the wire shape. `data.event` names what happened. */
export interface StateUpdate {
  updateType: UpdateType;
  projectId: string | null;
  data: { event: string; [key: string]: unknown };
}

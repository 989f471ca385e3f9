/**
 * The shapes the API answers with, declared once as zod schemas (the
 * OpenAPI document and MCP tool outputs derive from them), and the functions
 * that build them from the read model. Field names use the spec's spellings:
 * `projectId`, `songID`, `clipID`, `pgmId`.
 * @module
 */
import { z } from "zod";
import { velocitySchema } from "../../protocol/action_rules.ts";
import {
  ClipOptions,
  ClipState,
  Control,
  CueAction,
  Direction,
  Display,
  FileKind,
  Generator,
  ImageInputs,
  LaunchMode,
  PresetImage,
  PresetKind,
  PresetParameter,
  PresetQuarantine,
  Retrigger,
} from "../../protocol/model.ts";
import type {
  Clip,
  Effect,
  MediaFile,
  Preset,
  Project,
  Song,
  Visualizer,
} from "../../protocol/model.ts";
import { AppState, Camera, type PlayState, PlayStateView } from "../../protocol/state.ts";
import { exact } from "../../protocol/exact.ts";
import { ProjectTimecode, SongTimecode, TIMECODE_DEFAULTS } from "../../protocol/timecode.ts";
import { DataProblem, ProjectState } from "../../protocol/library.ts";

const ParamValue = z.union([z.number(), z.string(), z.boolean()]);

/** One row of the project list. */
export const ProjectListItemView = z.strictObject({
  projectId: z.string(),
  name: z.string(),
  songCount: z.number().int(),
  clipCount: z.number().int(),
  active: z.boolean(),
  state: ProjectState.describe(
    "open; closed, deleted (listed with ?all=true); damaged (its file could not be read)",
  ),
  problem: DataProblem.nullable().describe(
    "What was wrong with its file at start, when it was damaged (recovered or not)",
  ),
});

/** A media file. */
export const FileView = z.strictObject({
  fileId: z.string(),
  kind: FileKind,
  name: z.string(),
  mimeType: z.string(),
  size: z.number().int(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  duration: z.number().nullable().describe("Seconds; null for still images"),
});

/** A Clip's stored settings. */
export const ClipView = z.strictObject({
  clipID: z.string(),
  name: z.string(),
  songID: z.string().nullable().describe("The Song whose list holds the Clip"),
  index: z.number().int().nullable().describe("Zero-based position in its Song"),
  fileId: z.string().nullable(),
  generator: exact(Generator).optional().describe(
    "The generator preset it plays instead of a file; absent: none",
  ),
  duration: z.number(),
  launchMode: LaunchMode,
  retrigger: Retrigger,
  direction: Direction,
  loop: z.boolean(),
  velocitySensitivity: z.number(),
  options: exact(ClipOptions),
});

/** A Clip's runtime state: its play state and live parameter values. */
export const ClipStateView = z.strictObject({
  state: ClipState,
  position: z.number().nullable(),
  held: z.boolean(),
  velocity: velocitySchema().nullable(),
  gain: z.number().nullable(),
  live: z.record(z.string(), z.number()).describe("Parameters written by Controls and SET_PARAM"),
});

/** A Clip with its file and current state (clips-by-ids, one Song). */
export const ClipDetailView = ClipView.extend({
  file: FileView.nullable(),
  current: ClipStateView,
});

const CueView = z.strictObject({
  cueId: z.string(),
  time: z.number(),
  action: CueAction,
  clipID: z.string(),
});
const LyricView = z.strictObject({ time: z.number(), text: z.string() });

/** A Song as listed. */
export const SongView = z.strictObject({
  songID: z.string(),
  title: z.string(),
  position: z.number().int().describe("Zero-based position in the Project"),
  pgmId: z.string().nullable(),
  clipCount: z.number().int(),
  clipIDs: z.array(z.string()),
  audio: z.strictObject({ fileId: z.string(), duration: z.number().nullable(), volume: z.number() })
    .nullable(),
  backgroundClipID: z.string().nullable(),
  timeline: z.array(CueView),
  lyrics: z.array(LyricView),
  /** The Song's own timecode settings, when it has them (docs/midi.md, "Timecode"). */
  timecode: exact(SongTimecode).optional(),
});

/** One Song with its Clips in full. */
export const SongDetailView = SongView.extend({ clips: z.array(ClipDetailView) });

/** An Effect of a Project. */
export const EffectView = z.strictObject({
  effectId: z.string(),
  name: z.string(),
  type: z.string(),
  presetId: z.string().nullable(),
  linked: z.boolean().describe("Linked to a preset"),
  enabled: z.boolean(),
  params: z.record(z.string(), ParamValue),
  inputs: ImageInputs.optional().describe("Its image inputs bound (effect.set_input)"),
});

/** A Visualizer of a Project. */
export const VisualizerView = z.strictObject({
  visualizerId: z.string(),
  name: z.string(),
  engine: z.string(),
  presetId: z.string().nullable(),
  linked: z.boolean(),
  enabled: z.boolean(),
  params: z.record(z.string(), ParamValue),
  inputs: ImageInputs.optional().describe("Its image inputs bound (visualizer.set_input)"),
});

/** A preset. */
export const PresetView = z.strictObject({
  presetId: z.string(),
  kind: PresetKind,
  name: z.string(),
  type: z.string().describe("Effect type or Visualizer engine"),
  builtIn: z.boolean(),
  parameters: z.array(exact(PresetParameter)),
  code: z.string(),
  vertexCode: z.string().optional().describe(
    "Its own vertex shader (ISF's .vs), when it has one: compiled with code",
  ),
  quarantine: exact(PresetQuarantine).nullable().describe(
    "Set when its shader stopped the output's frames: not drawn until its code or vertexCode is edited",
  ),
  images: z.array(exact(PresetImage)).optional().describe(
    "Its IMPORTED images, stored with it (preset.import)",
  ),
});

/** A Control's settings. */
export const ControlView = exact(
  Control.omit({ id: true }).extend({ controlID: z.string() }),
);

/** A Project in full: its document (play state is served apart). */
export const ProjectView = z.strictObject({
  projectId: z.string(),
  name: z.string(),
  revision: z.number().int(),
  active: z.boolean(),
  songs: z.array(SongView),
  clips: z.array(ClipView),
  files: z.array(FileView),
  effects: z.array(EffectView),
  visualizers: z.array(VisualizerView),
  backgroundClips: z.array(z.string()),
  controls: z.array(ControlView),
  display: exact(Display),
  /** How the active Song chases timecode (the defaults when the Project never set it). */
  timecode: exact(ProjectTimecode),
});

/** Names and counts only. */
export const ProjectSummaryView = z.strictObject({
  projectId: z.string(),
  name: z.string(),
  active: z.boolean(),
  counts: z.strictObject({
    songs: z.number().int(),
    clips: z.number().int(),
    files: z.number().int(),
    effects: z.number().int(),
    visualizers: z.number().int(),
  }),
  songs: z.array(
    z.strictObject({
      songID: z.string(),
      title: z.string(),
      position: z.number().int(),
      clipCount: z.number().int(),
    }),
  ),
});

/** What plays in a Project: declared in `protocol/state.ts`, one schema for every way out. */
export { PlayStateView };

/** A camera. */
export const CameraView = Camera;

/** Full screen, mute, output level, recording and editor state: the player's app state as is. */
export const AppStateSchema = AppState;

/**
 * Answers that stay the same object until the state they show changes (a
 * Project's full view, the app state): transports may cache their encoding
 * by identity. Everything else is built fresh per request.
 */
const stableAnswers = new WeakSet<object>();

/** Marks an answer as stable (see `isStableAnswer`); returns it. */
export function stableAnswer<T extends object>(answer: T): T {
  if (!stableAnswers.has(answer)) stableAnswers.add(answer);
  return answer;
}

/** Whether an answer object is stable, so its encoding may be cached by identity. */
export function isStableAnswer(answer: object): boolean {
  return stableAnswers.has(answer);
}

/** Derived types. */
export type ProjectListItemView = z.infer<typeof ProjectListItemView>;
export type FileView = z.infer<typeof FileView>;
export type ClipView = z.infer<typeof ClipView>;
export type ClipDetailView = z.infer<typeof ClipDetailView>;
export type SongView = z.infer<typeof SongView>;
export type SongDetailView = z.infer<typeof SongDetailView>;
export type EffectView = z.infer<typeof EffectView>;
export type VisualizerView = z.infer<typeof VisualizerView>;
export type PresetView = z.infer<typeof PresetView>;
export type ProjectView = z.infer<typeof ProjectView>;
export type ProjectSummaryView = z.infer<typeof ProjectSummaryView>;

/** Builds a file view. */
export function fileView(f: MediaFile): FileView {
  return {
    fileId: f.id,
    kind: f.kind,
    name: f.name,
    mimeType: f.mimeType,
    size: f.size,
    width: f.width,
    height: f.height,
    duration: f.duration,
  };
}

/** Builds a clip view; `songOf` gives the Song and index of a Clip. */
export function clipView(c: Clip, place: { songID: string; index: number } | undefined): ClipView {
  return {
    clipID: c.id,
    name: c.name,
    songID: place?.songID ?? null,
    index: place?.index ?? null,
    fileId: c.fileId,
    ...(c.generator ? { generator: c.generator } : {}),
    duration: c.duration,
    launchMode: c.launchMode,
    retrigger: c.retrigger,
    direction: c.direction,
    loop: c.loop,
    velocitySensitivity: c.velocitySensitivity,
    options: c.options,
  };
}

/** Builds a song view. */
export function songView(
  s: Song,
  position: number,
  files: ReadonlyMap<string, MediaFile>,
): SongView {
  const audio = s.audioFileId ? files.get(s.audioFileId) : undefined;
  return {
    songID: s.id,
    title: s.title,
    position,
    pgmId: s.pgmId,
    clipCount: s.clips.length,
    clipIDs: s.clips,
    audio: s.audioFileId
      ? { fileId: s.audioFileId, duration: audio?.duration ?? null, volume: s.audio.volume }
      : null,
    backgroundClipID: s.backgroundClipID,
    timeline: s.timeline.map((q) => ({
      cueId: q.id,
      time: q.time,
      action: q.action,
      clipID: q.clipID,
    })),
    lyrics: s.lyrics,
    ...(s.timecode ? { timecode: s.timecode } : {}),
  };
}

/** Builds an effect view. */
export function effectView(e: Effect): EffectView {
  return {
    effectId: e.id,
    name: e.name,
    type: e.type,
    presetId: e.presetId,
    linked: e.presetId !== null,
    enabled: e.enabled,
    params: e.params,
    ...(e.inputs ? { inputs: e.inputs } : {}),
  };
}

/** Builds a visualizer view. */
export function visualizerView(v: Visualizer): VisualizerView {
  return {
    visualizerId: v.id,
    name: v.name,
    engine: v.engine,
    presetId: v.presetId,
    linked: v.presetId !== null,
    enabled: v.enabled,
    params: v.params,
    ...(v.inputs ? { inputs: v.inputs } : {}),
  };
}

/** Builds a preset view. */
export function presetView(p: Preset): PresetView {
  return {
    presetId: p.id,
    kind: p.kind,
    name: p.name,
    type: p.type,
    builtIn: p.builtIn,
    parameters: p.parameters,
    code: p.code,
    ...(p.vertexCode === undefined ? {} : { vertexCode: p.vertexCode }),
    quarantine: p.quarantine,
    ...(p.images ? { images: p.images } : {}),
  };
}

/** Where each Clip sits: its Song and index. */
export function clipPlaces(project: Project): Map<string, { songID: string; index: number }> {
  const places = new Map<string, { songID: string; index: number }>();
  for (const song of project.songs) {
    song.clips.forEach((id, index) => places.set(id, { songID: song.id, index }));
  }
  return places;
}

/** Builds the full project view. */
export function projectView(p: Project, isActive: boolean): ProjectView {
  const places = clipPlaces(p);
  const files = new Map(p.files.map((f) => [f.id, f]));
  return {
    projectId: p.id,
    name: p.name,
    revision: p.revision,
    active: isActive,
    songs: p.songs.map((s, i) => songView(s, i, files)),
    clips: p.clips.map((c) => clipView(c, places.get(c.id))),
    files: p.files.map(fileView),
    effects: p.effects.map(effectView),
    visualizers: p.visualizers.map(visualizerView),
    backgroundClips: p.backgroundClips,
    controls: p.controls.map(({ id, ...rest }) => ({ controlID: id, ...rest })),
    display: p.display,
    timecode: p.timecode ?? TIMECODE_DEFAULTS,
  };
}

/** Builds the play state view (the player-clock stamp stays internal). */
export function playStateView(ps: PlayState, controls: Record<string, number>): PlayStateView {
  const { at: _at, ...rest } = ps;
  return { ...rest, controls: { ...controls } }; // a copy: the read model changes its own in place
}

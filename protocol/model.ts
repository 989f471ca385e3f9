/**
 * The project model, declared once as zod schemas; types are derived from
 * them. The player validates documents it loads from disk with these schemas,
 * and the server types its read model with them.
 * @module
 */
import { z } from "zod";
import { ProjectTimecode, SongTimecode } from "./timecode.ts";
import { MidiMap } from "./midi.ts";
import { CONTROL_NORMALIZED, CONTROL_SPAN } from "./action_rules.ts";

/** Stable, URL-safe ids: letters, digits, `_` and `-`. */
export const Id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "Must be 1-64 URL-safe characters");

/** How a Clip responds to triggers. See docs/domain.md. */
export const LaunchMode = z.enum(["Trigger", "Toggle", "Gate", "OneShot"]);
/** What a trigger does to a Clip that is already playing or paused. */
export const Retrigger = z.enum(["restart", "ignore", "stop"]);
/** Playback direction of a Clip. */
export const Direction = z.enum(["forward", "backward"]);
/** Media kinds the player can use. */
export const FileKind = z.enum(["image", "video", "audio"]);
/** Clip play states carried in `newState`. */
export const ClipState = z.enum(["stopped", "playing", "paused"]);
/** What a timeline cue does to its Clip when the Song reaches it. */
export const CueAction = z.enum(["play", "trigger", "stop"]);
/** How a Control shapes its 0.0-1.0 value before mapping it onto a Target range. */
export const Curve = z.enum(["linear", "exponential", "logarithmic", "smooth"]);

/** A media file of a Project, measured from its bytes on import. */
export const MediaFile = z.object({
  id: Id,
  kind: FileKind,
  name: z.string(),
  /** Path relative to the project folder, always under `media/`. */
  path: z.string(),
  mimeType: z.string(),
  size: z.number().int().nonnegative(),
  width: z.number().int().positive().nullable(),
  height: z.number().int().positive().nullable(),
  /** Seconds; null for still images. */
  duration: z.number().nonnegative().nullable(),
});

/** Image filters of a Clip; neutral values change nothing. */
export const Filters = z.object({
  brightness: z.number().default(0),
  contrast: z.number().default(1),
  saturation: z.number().default(1),
  hue: z.number().default(0),
  blur: z.number().default(0),
});

/** Kinds of preset: an Effect's, a Visualizer's, a transition's, or a generator Clip's (`docs/presets.md`). */
export const PresetKind = z.enum(["effect", "visualizer", "transition", "generator"]);

/** The longest transition, in seconds. */
export const MAX_TRANSITION_SECONDS = 60;

/**
 * A crossing from the outgoing picture to the incoming one through a transition preset (an ISF
 * shader reading `startImage`, `endImage` and `progress`) over `duration` seconds.
 */
export const Transition = z.object({
  presetId: Id,
  duration: z.number().positive().max(MAX_TRANSITION_SECONDS),
  /** The preset's parameters, by name (absent: its defaults). */
  params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).default({}),
});

/** What starts a crossing: a Clip replacing another, a Song change, `STOP_ALL_CLIPS_IN`. */
export const CrossingCause = z.enum(["clip", "song", "stop-all"]);
/** What starts a crossing. */
export type CrossingCause = z.infer<typeof CrossingCause>;

/**
 * The shader a generator Clip plays instead of a file: a generator preset (an ISF shader with
 * no image input, `docs/presets.md` "Generators") and its parameters.
 */
export const Generator = z.object({
  presetId: Id,
  /** The preset's parameters, by name (absent: its defaults). */
  params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).default({}),
});

/** Render and playback options of a Clip. */
export const ClipOptions = z.object({
  opacity: z.number().default(1),
  volume: z.number().default(1),
  speed: z.number().default(1),
  filters: Filters.prefault({}),
  /** Effect ids of the Project applied to this Clip, in order. */
  effects: z.array(Id).default([]),
  /** The transition this Clip enters through when it replaces another; absent or null: its Song's. */
  transition: Transition.nullable().optional(),
});

/** A Clip: one piece of media with its playback settings. */
export const Clip = z.object({
  id: Id,
  name: z.string(),
  fileId: Id.nullable(),
  /** The generator it plays instead of a file (`fileId` null); absent or null: none. */
  generator: Generator.nullable().optional(),
  /** Seconds: the media's duration, or the still-image hold time. */
  duration: z.number().positive(),
  launchMode: LaunchMode.default("Trigger"),
  retrigger: Retrigger.default("restart"),
  direction: Direction.default("forward"),
  loop: z.boolean().default(false),
  /** 0 ignores trigger velocity; 1 scales the Clip's level fully by it. */
  velocitySensitivity: z.number().min(0).max(1).default(0),
  options: ClipOptions.prefault({}),
});

/** A timed cue on a Song's timeline. */
export const Cue = z.object({
  id: Id,
  /** Seconds from the start of the Song. */
  time: z.number().nonnegative(),
  action: CueAction,
  clipID: Id,
});

/** One timed lyric line. */
export const Lyric = z.object({ time: z.number().nonnegative(), text: z.string() });

/** A Song: an ordered list of Clips with an optional audio track, timeline and lyrics. */
export const Song = z.object({
  id: Id,
  title: z.string(),
  pgmId: z.string().nullable().default(null),
  audioFileId: Id.nullable().default(null),
  audio: z.object({ volume: z.number().default(1) }).prefault({}),
  /** Clip ids in play order; a Clip belongs to at most one Song. */
  clips: z.array(Id).default([]),
  backgroundClipID: Id.nullable().default(null),
  timeline: z.array(Cue).default([]),
  lyrics: z.array(Lyric).default([]),
  /** Timecode chase of this Song (`protocol/timecode.ts`); absent: the Project's settings. */
  timecode: SongTimecode.optional(),
  /** The transition into this Song and between its Clips; absent or null: the Project's. */
  transition: Transition.nullable().optional(),
});

const ParamValue = z.union([z.number(), z.string(), z.boolean()]);

/**
 * Where an image input of a shader other than `inputImage` reads its picture (`docs/presets.md`,
 * "Several image inputs"): another Clip of the Project (its picture while it plays), the layers
 * below the one drawn, a camera (`deviceId`), an image file of the Project, or the preset's
 * `IMPORTED` image of the input's name.
 */
export const ImageSource = z.discriminatedUnion("from", [
  z.strictObject({ from: z.literal("clip"), clipID: Id }),
  z.strictObject({ from: z.literal("below") }),
  z.strictObject({ from: z.literal("camera"), cameraId: z.string().min(1).max(256) }),
  z.strictObject({ from: z.literal("file"), fileId: Id }),
  z.strictObject({ from: z.literal("imported") }),
]);

/** An Effect's or Visualizer's image inputs bound, by input name (absent: none bound). */
export const ImageInputs = z.record(z.string(), ImageSource);

/** An Effect instance of a Project. */
export const Effect = z.object({
  id: Id,
  name: z.string(),
  type: z.string(),
  presetId: Id.nullable().default(null),
  enabled: z.boolean().default(true),
  params: z.record(z.string(), ParamValue).default({}),
  /** Image inputs bound (`effect.set_input`); an unbound one reads transparent black. */
  inputs: ImageInputs.optional(),
});

/** A Visualizer instance of a Project. */
export const Visualizer = z.object({
  id: Id,
  name: z.string(),
  engine: z.string(),
  presetId: Id.nullable().default(null),
  enabled: z.boolean().default(true),
  params: z.record(z.string(), ParamValue).default({}),
  /** Image inputs bound (`visualizer.set_input`); an unbound one reads transparent black. */
  inputs: ImageInputs.optional(),
});

/** A parameter a preset exposes. */
export const PresetParameter = z.object({
  name: z.string(),
  type: z.enum(["number", "boolean", "color", "enum"]),
  min: z.number().optional(),
  max: z.number().optional(),
  options: z.array(z.string()).optional(),
  default: ParamValue,
});

/** Why and when a preset's shader was taken off the output (`docs/output.md`). */
export const PresetQuarantine = z.object({
  /** ISO time. */
  at: z.string(),
  /** What the output saw. */
  reason: z.string(),
});

/**
 * An `IMPORTED` image of an ISF preset, stored content-addressed in the preset store's folder
 * (`preset_images/<sha256>.<ext>`): its name in the code, the file it came from, its bytes'
 * SHA-256 and its measure.
 */
export const PresetImage = z.object({
  name: z.string(),
  file: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  mimeType: z.enum(["image/png", "image/jpeg"]),
  size: z.number().int().nonnegative(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});

/** An Effect, Visualizer or transition preset in the preset store (shared by all Projects). */
export const Preset = z.object({
  id: Id,
  kind: PresetKind,
  name: z.string(),
  /** The Effect type or Visualizer engine it instantiates. */
  type: z.string(),
  builtIn: z.boolean(),
  parameters: z.array(PresetParameter),
  code: z.string().default(""),
  /**
   * An isf preset's own vertex shader (ISF's `.vs` beside its `.fs`), compiled with `code`;
   * none (or empty): the default full-frame quad.
   */
  vertexCode: z.string().optional(),
  /**
   * Set by the player when this preset's shader stopped the output's frames (`at`: ISO time,
   * `reason`: what was seen); a quarantined preset is not drawn. Cleared by an edit of `code`
   * or `vertexCode`.
   */
  quarantine: PresetQuarantine.nullable().default(null),
  /** The header's `IMPORTED` images stored with it (absent: none; `PresetImage`). */
  images: z.array(PresetImage).optional(),
});

/** One mapping of a Control onto a Target. */
export const ControlTarget = z.object({
  /** `clip:<clipId>/<parameter>` */
  target: z.string(),
  min: z.number().default(0),
  max: z.number().default(1),
  curve: Curve.default("linear"),
  invert: z.boolean().default(false),
});

/** The settings of one Control (`CONTROL_IDS` of the action rules). */
export const Control = z.object({
  id: z.string().regex(CONTROL_NORMALIZED, `Must be one letter ${CONTROL_SPAN}`),
  name: z.string().default(""),
  /** Clamp the incoming value to 0.0-1.0 before shaping. */
  clamp: z.boolean().default(true),
  targets: z.array(ControlTarget).default([]),
});

/** Display options of a Project. */
export const Display = z.object({
  width: z.number().int().positive().default(1920),
  height: z.number().int().positive().default(1080),
  fps: z.number().positive().default(30),
  backgroundColor: z.string().default("#000000"),
  zoom: z.number().positive().default(1),
});

/** The project document as stored in `project.json`. */
export const Project = z.object({
  id: Id,
  name: z.string(),
  revision: z.number().int().nonnegative().default(0),
  songs: z.array(Song).default([]),
  clips: z.array(Clip).default([]),
  files: z.array(MediaFile).default([]),
  effects: z.array(Effect).default([]),
  visualizers: z.array(Visualizer).default([]),
  /** Clip ids that can play behind everything; the first is the default. */
  backgroundClips: z.array(Id).default([]),
  controls: z.array(Control).default([]),
  display: Display.prefault({}),
  /** Timecode chase settings (`protocol/timecode.ts`); absent: `TIMECODE_DEFAULTS`. */
  timecode: ProjectTimecode.optional(),
  /** The Project's MIDI map (`protocol/midi.ts`, docs/midi.md). */
  midi: MidiMap.prefault({}),
  /** The default transition of Clip replacements, Song changes and STOP_ALL; absent or null: a cut. */
  transition: Transition.nullable().optional(),
});

/** Derived types. */
export type LaunchMode = z.infer<typeof LaunchMode>;
export type Retrigger = z.infer<typeof Retrigger>;
export type Direction = z.infer<typeof Direction>;
export type FileKind = z.infer<typeof FileKind>;
export type ClipState = z.infer<typeof ClipState>;
export type CueAction = z.infer<typeof CueAction>;
export type Curve = z.infer<typeof Curve>;
export type MediaFile = z.infer<typeof MediaFile>;
export type ClipOptions = z.infer<typeof ClipOptions>;
export type Clip = z.infer<typeof Clip>;
export type Cue = z.infer<typeof Cue>;
export type Lyric = z.infer<typeof Lyric>;
export type Song = z.infer<typeof Song>;
export type Effect = z.infer<typeof Effect>;
export type Visualizer = z.infer<typeof Visualizer>;
export type PresetParameter = z.infer<typeof PresetParameter>;
export type Preset = z.infer<typeof Preset>;
export type PresetImage = z.infer<typeof PresetImage>;
export type ImageSource = z.infer<typeof ImageSource>;
export type PresetKind = z.infer<typeof PresetKind>;
export type Transition = z.infer<typeof Transition>;
export type Generator = z.infer<typeof Generator>;
export type ControlTarget = z.infer<typeof ControlTarget>;
export type Control = z.infer<typeof Control>;
export type Display = z.infer<typeof Display>;
export type Project = z.infer<typeof Project>;

/**
 * The action catalog of spec section 4.3, declared once, with which actions take
 * velocity and `base` (the rules' numbers are in `protocol/action_rules.ts`). The
 * server's core derives wire parsing (string coercion, `base`, velocity) from it;
 * the player its params' defaults; the transports their schemas.
 * @module
 */
import { z } from "zod";
import type { ActionRunParams } from "./methods.ts";
import {
  CONTROL_NORMALIZED,
  CONTROL_SPAN,
  DIRECTIONS,
  FRACTION,
  FRACTION_RANGE,
  INDEX_MIN,
  NUMBER_RANGE,
  PRESET_KINDS,
  PRIMARY_DISPLAY,
  RECORD_MODES,
  TARGET_PATTERN,
} from "./action_rules.ts";
import { isRegionText } from "./region.ts";

export { TARGET_PATTERN } from "./action_rules.ts";

/** The kinds of action parameter; each has one normalized form. */
export type ParamKind =
  | "clipId"
  | "songId"
  | "index"
  | "fraction"
  | "boolean"
  | "control"
  | "target"
  | "number"
  | "text"
  | "direction"
  | "recordMode"
  | "presetKind"
  | "projectId"
  | "region";

/** One declared parameter of an action. */
export interface ParamSpec {
  name: string;
  kind: ParamKind;
  isOptional: boolean;
  description: string;
  /** What an optional param means when it is left out (the player applies it). */
  default?: boolean | string;
}

/** One declared action. */
export interface ActionSpec {
  name: string;
  group: "playback" | "navigation" | "seek" | "control" | "system";
  description: string;
  params: readonly ParamSpec[];
  /**
   * True for an action about the application, not one Project (`PROJECT_SELECT`): the
   * body's top-level `projectID` (the target Project) is refused for it, and tools omit it.
   */
  isAppWide?: boolean;
  /** Rule 4: velocity feeds the Clip's Velocity Sensitivity; other actions ignore it. */
  takesVelocity?: true;
  /** Rule 5: `base` 1 subtracts one from the first param (a position); others ignore it. */
  isBaseShifted?: true;
  /**
   * True for an action about this machine's own output (its display, its region of a wide
   * stage): a rig group runs it on the rig that received it only, never on every rig.
   */
  isMachineLocal?: true;
  /** `"6.0"` for the actions the 5.0.0 interface did not have (spec section 9); absent: since 5.0.0. */
  since?: "6.0";
}

/** The normalized (already parsed) form of each parameter kind. */
export const PARAM_SCHEMAS: Record<ParamKind, z.ZodType> = {
  clipId: z.string().min(1),
  songId: z.string().min(1),
  index: z.number().int().min(INDEX_MIN),
  fraction: z.number().min(FRACTION.min).max(FRACTION.max),
  boolean: z.boolean(),
  control: z.string().regex(CONTROL_NORMALIZED),
  target: z.string().regex(TARGET_PATTERN),
  number: z.number().refine(Number.isFinite, "Must be a finite number"),
  text: z.string().min(1),
  direction: z.enum(DIRECTIONS),
  recordMode: z.enum(RECORD_MODES),
  presetKind: z.enum(PRESET_KINDS),
  projectId: z.string().min(1),
  region: z.string().refine(isRegionText, "Must be a region: full, or x,y,width,height[;edge=N]"),
};

function p(name: string, kind: ParamKind, description: string): ParamSpec {
  return { name, kind, isOptional: false, description };
}
function opt(
  name: string,
  kind: ParamKind,
  description: string,
  fallback?: boolean | string,
): ParamSpec {
  const spec: ParamSpec = { name, kind, isOptional: true, description };
  if (fallback !== undefined) spec.default = fallback;
  return spec;
}

const CLIP_OPT = opt("clipID", "clipId", "Clip id; omitted means the selected Clip");
const SONG_OPT = opt("songID", "songId", "Song id; omitted means the active Song");
const STOP_PLAYING = opt(
  "stopPlaying",
  "boolean",
  "Stop what plays before selecting (default true)",
  true,
);
const BACKGROUND = opt(
  "maybePlayBackground",
  "boolean",
  "Start the background Clip when nothing else plays",
  false,
);

/** Every action of the 6.0 catalog, in the spec's order. */
export const ACTIONS: readonly ActionSpec[] = [
  { name: "PLAY_IN", group: "playback", description: "Start playback", params: [] },
  { name: "STOP_IN", group: "playback", description: "Stop playback", params: [] },
  { name: "PAUSE_IN", group: "playback", description: "Pause", params: [CLIP_OPT] },
  { name: "RESUME_IN", group: "playback", description: "Resume from pause", params: [CLIP_OPT] },
  {
    name: "PLAY_TOGGLE_IN",
    group: "playback",
    description: "Toggle play/stop",
    params: [],
  },
  {
    name: "PAUSE_TOGGLE_IN",
    group: "playback",
    description: "Toggle pause/resume",
    params: [],
  },
  {
    name: "PLAY_CLIP_IN",
    group: "playback",
    takesVelocity: true,
    description: "Play a Clip by id",
    params: [CLIP_OPT],
  },
  {
    name: "PLAY_CLIP_BY_INDEX_IN",
    group: "playback",
    takesVelocity: true,
    isBaseShifted: true,
    description: "Play a Clip by position",
    params: [p("index", "index", "Clip position in the Song"), SONG_OPT],
  },
  {
    name: "TRIGGER_CLIP_IN",
    group: "playback",
    takesVelocity: true,
    description: "Trigger a Clip, respecting its launch mode and retrigger behavior",
    params: [
      p("clipID", "clipId", "Clip id"),
      opt("activateSong", "boolean", "Also make the Clip's Song the active Song", false),
    ],
  },
  {
    name: "RESTART_CLIP_IN",
    group: "playback",
    takesVelocity: true,
    description: "Restart a Clip from the beginning",
    params: [CLIP_OPT],
  },
  {
    name: "RELEASE_CLIP_IN",
    group: "playback",
    since: "6.0",
    description: "Release a held Clip (Gate mode only)",
    params: [p("clipID", "clipId", "Clip id")],
  },
  {
    name: "RELEASE_CLIP_BY_INDEX_IN",
    group: "playback",
    isBaseShifted: true,
    since: "6.0",
    description: "Release a held Clip by position (Gate mode only)",
    params: [p("index", "index", "Clip position in the Song"), SONG_OPT],
  },
  {
    name: "STOP_CLIP_IN",
    group: "playback",
    description: "Stop one Clip",
    params: [p("clipID", "clipId", "Clip id"), BACKGROUND],
  },
  {
    name: "STOP_ALL_CLIPS_IN",
    group: "playback",
    description: "Stop every Clip",
    params: [BACKGROUND],
  },
  {
    name: "NEXT_CLIP_IN",
    group: "navigation",
    description: "Next Clip",
    params: [opt("anySong", "boolean", "Cross into the next Song at the end", false)],
  },
  {
    name: "PREV_CLIP_IN",
    group: "navigation",
    description: "Previous Clip",
    params: [opt("anySong", "boolean", "Cross into the previous Song at the start", false)],
  },
  {
    name: "NEXT_SONG_IN",
    group: "navigation",
    description: "Next Song",
    params: [opt("noStop", "boolean", "Leave playback running", false)],
  },
  {
    name: "PREV_SONG_IN",
    group: "navigation",
    description: "Previous Song",
    params: [opt("noStop", "boolean", "Leave playback running", false)],
  },
  {
    name: "PLAY_NEXT_SONG_IN",
    group: "navigation",
    description: "Move to the next Song and start playing it",
    params: [],
  },
  {
    name: "SONG_SELECT_IN",
    group: "navigation",
    isBaseShifted: true,
    description: "Select a Song by position",
    params: [p("index", "index", "Song position"), STOP_PLAYING],
  },
  {
    name: "SONG_SELECT_BY_ID",
    group: "navigation",
    description: "Select a Song by id",
    params: [p("songID", "songId", "Song id"), STOP_PLAYING],
  },
  {
    name: "SONG_SELECT_PGM_ID",
    group: "navigation",
    description: "Select a Song by Program Identifier",
    params: [p("pgmId", "text", "Program Identifier"), STOP_PLAYING],
  },
  {
    name: "SONG_SELECT_PERCENT_IN",
    group: "navigation",
    description: `Select a Song by position through the list, ${FRACTION_RANGE}`,
    params: [p("percent", "fraction", "Fraction through the Song list"), STOP_PLAYING],
  },
  {
    name: "SEEK_CLIP_IN",
    group: "seek",
    description: "Seek a Clip; 0.0 start to 1.0 end",
    params: [p("clipID", "clipId", "Clip id"), p("percent", "fraction", "Fraction of the Clip")],
  },
  {
    name: "SEEK_SONG_IN",
    group: "seek",
    description: `Seek Song audio; ${FRACTION_RANGE}`,
    params: [p("songID", "songId", "Song id"), p("percent", "fraction", "Fraction of the Song")],
  },
  {
    name: "CLIP_DIRECTION",
    group: "seek",
    description: "Set a Clip's direction",
    params: [p("clipID", "clipId", "Clip id"), p("direction", "direction", "forward or backward")],
  },
  {
    name: "SET_CONTROL",
    group: "control",
    since: "6.0",
    description: "Drive a Control",
    params: [
      p("controlID", "control", `Control letter ${CONTROL_SPAN}, case-insensitive`),
      p("value", "number", `Value, conventionally ${NUMBER_RANGE}, not clamped`),
    ],
  },
  {
    name: "SET_PARAM",
    group: "control",
    since: "6.0",
    description: "Write one Target directly, skipping Controls",
    params: [
      p("targetID", "target", "Target of the form clip:<clipId>/<parameter>"),
      p("value", "number", "Value, not clamped"),
    ],
  },
  {
    name: "OUTPUT_LEVEL_IN",
    group: "system",
    description: "Set master output level",
    params: [p("level", "fraction", `Level ${FRACTION_RANGE}`)],
  },
  { name: "MUTE_TOGGLE", group: "system", description: "Toggle mute", params: [] },
  { name: "FULLSCREEN_TOGGLE", group: "system", description: "Toggle full screen", params: [] },
  {
    name: "OUTPUT_DISPLAY",
    group: "system",
    since: "6.0",
    isAppWide: true,
    isMachineLocal: true,
    description: "Put the output on a display (window and full screen), kept across restarts",
    params: [
      p(
        "display",
        "text",
        `A display's name or index (GET /api/v1/output/displays lists them), or ${PRIMARY_DISPLAY}`,
      ),
    ],
  },
  {
    name: "OUTPUT_REGION",
    group: "system",
    since: "6.0",
    isAppWide: true,
    isMachineLocal: true,
    description: "Show a region of the canvas, with blend edges (a wide stage)",
    params: [
      p(
        "region",
        "region",
        "full, or x,y,width,height in canvas fractions, then ;left= ;right= ;top= ;bottom= blend edges (fractions of the region) and ;gamma= (e.g. 0,0,0.4,1;right=0.25)",
      ),
    ],
  },
  {
    name: "RECORD_TOGGLE",
    group: "system",
    since: "6.0",
    description: "Toggle recording",
    params: [opt("mode", "recordMode", "now (default) or next-trigger", "now")],
  },
  {
    name: "PROJECT_SELECT",
    group: "system",
    since: "6.0",
    isAppWide: true,
    description: "Make an open Project the active one",
    params: [p("projectID", "projectId", "Id of the open Project to make active")],
  },
  { name: "PANIC", group: "system", description: "Reload every window", params: [] },
  {
    name: "OPEN_EDITOR",
    group: "system",
    description: "Open the matching editor on a preset",
    params: [
      p("kind", "presetKind", "effect or visualizer"),
      p("presetID", "text", "Preset id"),
    ],
  },
];

/** Catalog entries by name. */
export const ACTIONS_BY_NAME: ReadonlyMap<string, ActionSpec> = new Map(
  ACTIONS.map((a) => [a.name, a]),
);

/** Rule 4: the actions whose velocity feeds Velocity Sensitivity (`takesVelocity`). */
export const VELOCITY_ACTIONS: ReadonlySet<string> = new Set(
  ACTIONS.filter((a) => a.takesVelocity).map((a) => a.name),
);

/** Rule 5: the actions whose first param `base` 1 shifts (`isBaseShifted`), and no others. */
export const BASE_SHIFTED_ACTIONS: ReadonlySet<string> = new Set(
  ACTIONS.filter((a) => a.isBaseShifted).map((a) => a.name),
);

/** Parsed parameter values by name; optional ones may be absent. */
export type ActionParams = Record<string, string | number | boolean>;

/**
 * An action as it crosses to the player: parsed, base-shifted, typed; the
 * params of `action.run` (`protocol/methods.ts`) without the retry key, its
 * params checked against the catalog. `projectId` null means the active
 * Project; `velocity` (0-127) is present only for the velocity actions.
 */
export type NormalizedAction =
  & Omit<ActionRunParams, "idempotencyKey" | "params">
  & { params: ActionParams };

const schemaCache = new Map<string, z.ZodType>();

/**
 * The schema of an action's normalized params, derived from its declaration.
 * @throws {RangeError} for an unknown action name
 */
export function normalizedParamsSchema(name: string): z.ZodType<ActionParams> {
  const cached = schemaCache.get(name);
  if (cached) return cached as z.ZodType<ActionParams>;
  const spec = ACTIONS_BY_NAME.get(name);
  if (!spec) throw new RangeError(`Unknown action: "${name}"`);
  const shape: Record<string, z.ZodType> = {};
  for (const param of spec.params) {
    const schema = PARAM_SCHEMAS[param.kind];
    shape[param.name] = param.isOptional ? schema.optional() : schema;
  }
  const schema = z.strictObject(shape);
  schemaCache.set(name, schema);
  return schema as unknown as z.ZodType<ActionParams>;
}

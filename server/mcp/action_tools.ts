/**
 * The action tools: groups of actions of the catalog (`protocol/actions.ts`)
 * behind one tool each, with the params named instead of positional. Each
 * call is the `action` operation, so the core's rules (coercion, `base`,
 * velocity) apply as over HTTP.
 * @module
 */
import { z } from "zod";
import {
  ACTIONS,
  ACTIONS_BY_NAME,
  type ActionSpec,
  BASE_SHIFTED_ACTIONS,
  type ParamKind,
  VELOCITY_ACTIONS,
} from "../../protocol/actions.ts";
import {
  BASE,
  baseSchema,
  CONTROL_LETTER,
  CONTROL_SPAN,
  DIRECTIONS,
  FRACTION,
  FRACTION_RANGE,
  INDEX_MIN,
  NUMBER_RANGE,
  PRESET_KINDS,
  PRIMARY_DISPLAY,
  RECORD_MODES,
  VELOCITY_RANGE,
  velocitySchema,
} from "../../protocol/action_rules.ts";
import {
  ActionResultView,
  ControlView,
  CueportError,
  operationNamed,
  type WireField,
  withWireField,
} from "../core/mod.ts";
import { type AnyTool, changeAnnotations, type McpTool, type ToolContext } from "./tool.ts";

/** How a param of each kind is typed in a tool's input (the core still parses it). */
const KIND_SCHEMAS: Record<ParamKind, () => z.ZodType> = {
  clipId: () => z.string().min(1),
  songId: () => z.string().min(1),
  text: () => z.string().min(1),
  index: () => z.number().int().min(INDEX_MIN),
  fraction: () => z.number().min(FRACTION.min).max(FRACTION.max),
  boolean: () => z.boolean(),
  control: () => z.string().regex(CONTROL_LETTER, `Must be one letter ${CONTROL_SPAN}`),
  target: () => z.string().min(1),
  number: () => z.number(),
  direction: () => z.enum(DIRECTIONS),
  recordMode: () => z.enum(RECORD_MODES),
  presetKind: () => z.enum(PRESET_KINDS),
  projectId: () => z.string().min(1),
  region: () => z.string().min(1),
};

/** The fields of the input that are not action params. */
const ENVELOPE = ["action", "projectId", "base", "velocity"];

/** The named params of `specs`, each typed once and described with the actions that take it. */
function paramShape(specs: readonly ActionSpec[]): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  const takers = new Map<string, string[]>();
  for (const spec of specs) {
    for (const param of spec.params) {
      if (!takers.has(param.name)) {
        takers.set(param.name, []);
        shape[param.name] = KIND_SCHEMAS[param.kind]().optional().describe(param.description);
      }
      takers.get(param.name)!.push(spec.name);
    }
  }
  for (const [name, actions] of takers) {
    const described = shape[name]!;
    shape[name] = described.describe(
      `${described.description ?? name} (for ${actions.join(", ")})`,
    );
  }
  return shape;
}

/** The `action` operation's body from a tool's named input. */
function actionBody(input: Record<string, unknown>): Record<string, unknown> {
  const spec = ACTIONS_BY_NAME.get(input.action as string)!;
  for (const key of Object.keys(input)) {
    if (ENVELOPE.includes(key) || spec.params.some((p) => p.name === key)) continue;
    const takes = spec.params.map((p) => p.name).join(", ") || "no params";
    throw new CueportError(
      "INVALID_MESSAGE",
      `Invalid ${key}: ${spec.name} does not take it (it takes ${takes})`,
      { field: key },
    );
  }
  const params = spec.params.map((p) => input[p.name] ?? null);
  while (params.length > 0 && params[params.length - 1] === null) params.pop();
  const body: Record<string, unknown> = { name: spec.name, params };
  if (input.projectId !== undefined) body.projectID = input.projectId;
  if (input.base !== undefined) body.base = input.base;
  if (input.velocity !== undefined) body.velocity = input.velocity;
  return body;
}

/**
 * The action rules name a param by position (`params[0] (clipID)`); a tool's
 * input names it (`clipID`).
 */
function namedParam(field: string): WireField | undefined {
  const name = /^params\[\d+\] \((\w+)\)$/.exec(field)?.[1];
  return name === undefined ? undefined : { field: name };
}

const action = operationNamed("action");
const ProjectId = z.string().min(1).optional().describe(
  "Target Project; omitted means the active one",
);

/** Runs one action of a tool; the rules' errors name the param. */
async function runAction(input: Record<string, unknown>, ctx: ToolContext) {
  try {
    return await ctx.run(action, actionBody(input)) as Record<string, unknown>;
  } catch (error) {
    throw withWireField(error, namedParam);
  }
}

function actionGroupTool(spec: {
  name: string;
  title: string;
  names: readonly string[];
  intro: string;
  example: string;
  isDestructive: boolean;
  withBase: boolean;
}): AnyTool {
  const specs = spec.names.map((n) => ACTIONS_BY_NAME.get(n)!);
  const list = specs.map((s) =>
    `${s.name}(${
      s.params.map((p) => p.name + (p.isOptional ? "?" : "")).join(", ")
    }): ${s.description}`
  ).join("; ");
  const velocity = specs.filter((s) => VELOCITY_ACTIONS.has(s.name)).map((s) => s.name);
  const shifted = specs.filter((s) => BASE_SHIFTED_ACTIONS.has(s.name)).map((s) => s.name);
  const shape: Record<string, z.ZodType> = {
    action: z.enum(spec.names as [string, ...string[]]).describe("The action to run"),
    ...paramShape(specs),
    projectId: ProjectId,
  };
  if (spec.withBase) {
    shape.base = baseSchema().optional().describe(
      `${BASE.shifted} counts positions from ${BASE.shifted} (for ${shifted.join(", ")}); ` +
        `default ${BASE.default}`,
    );
    shape.velocity = velocitySchema().optional()
      .describe(`${VELOCITY_RANGE} (for ${velocity.join(", ")}); omitted is full velocity`);
  }
  return {
    name: spec.name,
    description:
      `${spec.intro} Actions: ${list}. Params are named; give only those of the action. ` +
      `Example: ${spec.example}`,
    annotations: changeAnnotations(spec.title, spec.isDestructive),
    operation: action,
    reaches: [action],
    input: z.strictObject(shape),
    output: ActionResultView,
    call: async (input: Record<string, unknown>, ctx) => ({
      structured: await runAction(input, ctx),
    }),
  };
}

const ControlListView = z.strictObject({
  projectId: z.string(),
  controls: z.array(ControlView),
  values: z.record(z.string(), z.number()).describe("Last value sent to each Control"),
});

/** `app_control`'s answer: the Control list, or the result of the action. */
const ControlAnswer = z.union([ControlListView, ActionResultView]);

function controlTool(): McpTool<Record<string, unknown>> {
  const project = operationNamed("project");
  const playstate = operationNamed("playstate");
  return {
    name: "app_control",
    description:
      `The real-time Controls ${CONTROL_SPAN}. action "list": every Control with its name, clamping, Targets and last value. "SET_CONTROL": drive a Control by letter (controlID, value, conventionally ${NUMBER_RANGE}, not clamped here; the Control's settings shape it). "SET_PARAM": write one Target directly (targetID of the form clip:<clipID>/<parameter>, value), skipping Controls. Examples: {"action": "list"}; {"action": "SET_CONTROL", "controlID": "A", "value": 0.5}; {"action": "SET_PARAM", "targetID": "clip:clip-intro/opacity", "value": 0.8}`,
    annotations: changeAnnotations(`Controls ${CONTROL_SPAN}`, false),
    operation: action,
    reaches: [action, project, playstate],
    input: z.strictObject({
      action: z.enum(["list", "SET_CONTROL", "SET_PARAM"]),
      controlID: z.string().regex(CONTROL_LETTER, `Must be one letter ${CONTROL_SPAN}`).optional()
        .describe(`Control letter ${CONTROL_SPAN} (SET_CONTROL)`),
      targetID: z.string().min(1).optional().describe("clip:<clipID>/<parameter> (SET_PARAM)"),
      value: z.number().optional().describe("The value to send (SET_CONTROL, SET_PARAM)"),
      projectId: ProjectId,
    }),
    output: ControlAnswer,
    call: async (input, ctx) => {
      if (input.action !== "list") return { structured: await runAction(input, ctx) };
      for (const key of ["controlID", "targetID", "value"]) {
        if (input[key] !== undefined) {
          throw new CueportError("INVALID_MESSAGE", `Invalid ${key}: list takes only projectId`, {
            field: key,
          });
        }
      }
      const where = input.projectId === undefined ? {} : { projectId: input.projectId };
      const view = await ctx.run(project, where) as { projectId: string; controls: unknown[] };
      const state = await ctx.run(playstate, where) as { controls: Record<string, number> };
      return {
        structured: { projectId: view.projectId, controls: view.controls, values: state.controls },
      };
    },
  };
}

/**
 * `app_project_select`: the action PROJECT_SELECT, its Project spelled `projectId` as in every
 * tool (docs/api.md, "One spelling per name"). It is the Project to make active, not a target:
 * the action runs on no one Project, so the tool has no target field.
 */
function projectSelectTool(): McpTool<{ projectId: string }> {
  return {
    name: "app_project_select",
    description:
      'Choose the active Project: make an open Project (app_get_projects lists them, the active one marked) the one that actions, queries and tools called without a projectId go to, on every transport; saved across restarts. Nothing is stopped: what plays in the Project left plays on. A closed Project must be opened first (app_project_edit, edit project.open); choosing the active one again changes nothing (applied false). Example: {"projectId": "tour-2027"}',
    annotations: changeAnnotations("Choose the active Project", false),
    operation: action,
    reaches: [action],
    input: z.strictObject({
      projectId: z.string().min(1).describe("The open Project to make active"),
    }),
    output: ActionResultView,
    call: async (input, ctx) => {
      const body = { name: "PROJECT_SELECT", params: [input.projectId] };
      try {
        return { structured: await ctx.run(action, body) as Record<string, unknown> };
      } catch (error) {
        throw withWireField(
          error,
          (f) => f.startsWith("params[0]") ? { field: "projectId" } : undefined,
        );
      }
    },
  };
}

const byGroup = (...groups: string[]) =>
  ACTIONS.filter((a) => groups.includes(a.group)).map((a) => a.name);

/** Every action tool. */
export function actionTools(): AnyTool[] {
  return [
    actionGroupTool({
      name: "app_playback",
      title: "Playback",
      names: byGroup("playback", "navigation", "seek"),
      intro:
        `Run the show: start and stop, trigger, pause, restart, release and stop Clips, move between Clips and Songs, select Songs by position, id, Program Identifier or percent, seek Clips and Song audio (percent ${FRACTION_RANGE}, not seconds), set a Clip's direction. Positions count from ${BASE.default} unless base is ${BASE.shifted}. Check the result with app_get_playstate.`,
      example:
        '{"action": "SONG_SELECT_BY_ID", "songID": "song-2"}; {"action": "TRIGGER_CLIP_IN", "clipID": "clip-intro", "velocity": 100}; {"action": "PLAY_IN"}',
      isDestructive: false,
      withBase: true,
    }),
    actionGroupTool({
      name: "app_system",
      title: "System",
      names: [
        "FULLSCREEN_TOGGLE",
        "OUTPUT_DISPLAY",
        "OUTPUT_REGION",
        "MUTE_TOGGLE",
        "RECORD_TOGGLE",
        "OUTPUT_LEVEL_IN",
        "PANIC",
      ],
      intro:
        `Application-wide switches: full screen, the display of the output (a name or index from app_get_displays, or ${PRIMARY_DISPLAY}; kept across restarts), the region of the canvas this machine shows with its blend edges (a wide stage; kept across restarts), mute, recording of the output (now or on the next Clip trigger; a second toggle stops), master output level ${FRACTION_RANGE}, and PANIC, which reloads every output window (the show blinks: use it only when the output is stuck). Check the result with app_get_app_state.`,
      example: '{"action": "MUTE_TOGGLE"}; {"action": "OUTPUT_LEVEL_IN", "level": 0.8}',
      isDestructive: true,
      withBase: false,
    }),
    actionGroupTool({
      name: "app_open_editor",
      title: "Open a preset editor",
      names: ["OPEN_EDITOR"],
      intro:
        "Open the Effect or Visualizer editor on a preset (app_get_presets lists them): a window on the show machine, in the output's browser, with the preset's code, its parameters as controls, compile errors and a live preview. While it is open, changes made with app_effect_edit or app_visualizer_edit to that preset show in it, and edits made in it are ordinary edits (undoable). app_get_app_state shows the editor; its `shown` is false until the window has loaded (always false when no output runs), and the editor clears when the window is closed.",
      example: '{"action": "OPEN_EDITOR", "kind": "effect", "presetID": "fx-blur"}',
      isDestructive: false,
      withBase: false,
    }),
    controlTool(),
    projectSelectTool(),
  ];
}

/**
 * The edit tools: the edit catalog (`protocol/edits/`) by group, each call
 * one `edit` operation (one edit or an atomic batch, one undo step), so the
 * core's checks and the player's rules apply as over HTTP. Also the edit
 * schemas, preset validation and media import (a path on the show machine,
 * or the bytes themselves through the `upload` operation).
 * @module
 */
import { Buffer } from "node:buffer";
import { z } from "zod";
import {
  EDITS,
  EDITS_BY_NAME,
  type EditSpec,
  MAX_BATCH_EDITS,
  PresetInput,
} from "../../protocol/edits/mod.ts";
import { CueportError, EditResultView, operationNamed, parseInput } from "../core/mod.ts";
import { type AnyTool, changeAnnotations, type McpTool, readAnnotations } from "./tool.ts";

const edit = operationNamed("edit");
const ProjectId = z.string().min(1).optional().describe(
  "Target Project; omitted means the active one",
);

type Kind = "effect" | "visualizer";

/**
 * An edit as a tool takes it: its params schema, the kind filled in for preset edits of a kind
 * tool, and a Project it names spelled `projectId` as in every tool's input (docs/api.md, "One
 * spelling per name"; `call` sends it on as the edit's `projectID`).
 */
function itemOf(spec: EditSpec, kind?: Kind): z.ZodObject {
  let params = kind && "kind" in spec.params.shape
    ? spec.params.extend({
      kind: z.literal(kind).default(kind).describe(`Always ${kind} here`),
    })
    : spec.params;
  const named = spec.params.shape.projectID;
  if (named) params = params.omit({ projectID: true }).extend({ projectId: named });
  return z.strictObject({
    name: z.literal(spec.name),
    params: params.describe(spec.summary),
  });
}

/** An edit's params as the catalog spells them: a Project it names is `projectID` there. */
function editSpelling(name: string, params: Record<string, unknown>): Record<string, unknown> {
  if (!EDITS_BY_NAME.get(name)?.params.shape.projectID || !("projectId" in params)) return params;
  const { projectId, ...rest } = params;
  return { ...rest, projectID: projectId };
}

const EditItem = z.strictObject({
  name: z.string().min(1),
  params: z.record(z.string(), z.unknown()).default({}),
});
const LooseInput = z.strictObject({
  projectId: z.string().min(1).optional(),
  edits: z.array(EditItem).min(1).max(MAX_BATCH_EDITS),
});

function editGroupTool(spec: {
  name: string;
  title: string;
  edits: readonly EditSpec[];
  intro: string;
  example: string;
  isDestructive: boolean;
  /** Preset edits in this tool are of this kind only. */
  kind?: Kind;
}): McpTool<z.infer<typeof LooseInput>> {
  const names = new Set(spec.edits.map((e) => e.name));
  const items = spec.edits.map((e) => itemOf(e, spec.kind));
  const list = spec.edits.map((e) => `${e.name}: ${e.summary}`).join("; ");
  return {
    name: spec.name,
    description: `${spec.intro} Edits: ${list}. Send one edit or several in "edits": a batch ` +
      `applies all or none and is one undo step. Params are zero-based; app_describe_edit ` +
      `gives the full schema of one edit. Example: ${spec.example}`,
    annotations: changeAnnotations(spec.title, spec.isDestructive),
    operation: edit,
    reaches: [edit],
    input: z.strictObject({
      projectId: ProjectId,
      edits: z.array(
        items.length === 1 ? items[0]! : z.discriminatedUnion(
          "name",
          items as [
            z.ZodObject,
            z.ZodObject,
          ],
        ),
      ).min(1).max(MAX_BATCH_EDITS).describe("The edits, applied in order as one step"),
    }),
    // The edit rules name each bad param (edits.0.params.position); here only the names.
    parse: (raw) => {
      const input = parseInput(LooseInput, raw);
      for (const [i, e] of input.edits.entries()) {
        if (names.has(e.name)) continue;
        const other = EDITS_BY_NAME.get(e.name);
        const owner = other ? TOOL_OF_GROUP[other.group] : undefined;
        throw new CueportError(
          "INVALID_MESSAGE",
          `Invalid edits.${i}.name: "${e.name}" is not an edit of ${spec.name}` +
            (owner ? `: send it with ${owner}` : `; it takes ${[...names].join(", ")}`),
          { field: `edits.${i}.name` },
        );
      }
      return input;
    },
    output: EditResultView,
    call: async ({ projectId, edits }, ctx) => {
      const body: Record<string, unknown> = {
        edits: edits.map((e) => {
          const isKindless = spec.kind && e.name.startsWith("preset.") && !("kind" in e.params);
          const params = isKindless ? { ...e.params, kind: spec.kind } : e.params;
          return { name: e.name, params: editSpelling(e.name, params) };
        }),
      };
      if (projectId !== undefined) body.projectID = projectId;
      return { structured: mcpSpelling(await ctx.run(edit, body) as Record<string, unknown>) };
    },
  };
}

/**
 * An edit's answer with the params its messages quote in MCP's spelling: `project.restore
 * {"projectID": ...}` is `{"projectId": ...}` here, as the tools' input spells it.
 */
function mcpSpelling(result: Record<string, unknown>): Record<string, unknown> {
  const edits = result.edits;
  if (!Array.isArray(edits)) return result;
  return {
    ...result,
    edits: edits.map((e: { message?: unknown }) =>
      typeof e.message === "string"
        ? { ...e, message: e.message.replaceAll('{"projectID": ', '{"projectId": ') }
        : e
    ),
  };
}

/** Which tool sends the edits of each group. */
const TOOL_OF_GROUP: Record<string, string> = {
  clips: "app_clip_edit",
  songs: "app_song_edit",
  project: "app_project_edit",
  controls: "app_project_edit",
  effects: "app_effect_edit",
  visualizers: "app_visualizer_edit",
  presets: "app_preset_edit",
  files: "app_file_edit",
};

const inGroup = (...groups: string[]) => EDITS.filter((e) => groups.includes(e.group));
const PRESET_CHANGES = EDITS.filter((e) => e.group === "presets" && e.name !== "preset.validate");

const EditSchemaAnswer = z.union([
  operationNamed("editSchema").output,
  z.strictObject({
    edits: z.array(z.strictObject({
      name: z.string(),
      group: z.string(),
      summary: z.string(),
      tool: z.string().describe("The tool that sends it"),
    })),
  }),
]);

function describeEditTool(): McpTool<{ name?: string | undefined }> {
  const one = operationNamed("editSchema");
  const all = operationNamed("editSchemas");
  return {
    name: "app_describe_edit",
    description:
      'Describe one edit: its parameters as JSON Schema (types, ranges, enums, defaults, descriptions). Call it before an edit tool when unsure of the params. Without a name it lists every edit with its summary and the tool that sends it. Example: {"name": "clip.update"}',
    annotations: readAnnotations("Describe an edit"),
    operation: one,
    reaches: [one, all],
    input: z.strictObject({
      name: z.string().min(1).optional().describe("Edit name such as clip.add; omitted lists all"),
    }),
    output: EditSchemaAnswer,
    call: async ({ name }, ctx) => {
      if (name !== undefined) {
        return { structured: await ctx.run(one, { name }) as Record<string, unknown> };
      }
      const { edits } = await ctx.run(all, {}) as {
        edits: { name: string; group: string; summary: string }[];
      };
      return {
        structured: {
          edits: edits.map((e) => ({
            name: e.name,
            group: e.group,
            summary: e.summary,
            tool: TOOL_OF_GROUP[e.group] ?? "app_validate_preset",
          })),
        },
      };
    },
  };
}

const ValidationView = z.strictObject({
  valid: z.boolean(),
  problems: z.array(z.string()).describe("What to fix; empty when valid"),
});

function validatePresetTool(): McpTool<Record<string, unknown>> {
  return {
    name: "app_validate_preset",
    description:
      'Check a preset definition (kind, name, type, parameters, code) without writing anything: the answer says whether it is valid and lists each problem (duplicate names, defaults out of range, ...). With type "isf" the code is an ISF shader (a /*{JSON header with INPUTS}*/ then GLSL ES 1.00 with gl_FragColor; an effect declares {"NAME": "inputImage", "TYPE": "image"}, a visualizer an audio or audioFFT input): the INPUTS of its header become the parameters (leave parameters out) and each code problem is named by its line and column. Call it before preset.add in app_preset_edit. Example: {"kind": "effect", "name": "Soft glow", "type": "glow", "parameters": [{"name": "amount", "type": "number", "min": 0, "max": 1, "default": 0.5}]}',
    annotations: readAnnotations("Validate a preset"),
    operation: edit,
    reaches: [edit],
    input: PresetInput,
    parse: (raw) => raw as Record<string, unknown>, // the edit rules check it, naming each param
    output: ValidationView,
    call: async (params, ctx) => {
      const answer = await ctx.run(edit, { name: "preset.validate", params }) as {
        edits: { result?: unknown }[];
      };
      return { structured: answer.edits[0]!.result as Record<string, unknown> };
    },
  };
}

const FileInput = z.strictObject({
  projectId: ProjectId,
  path: z.string().min(1).max(4096).optional()
    .describe("Absolute path of a file on the show machine (only from the show machine itself)"),
  contentBase64: z.string().min(1).optional()
    .describe("The file's bytes, base64 (small files: the request body limit applies)"),
  name: z.string().trim().min(1).max(200).optional()
    .describe("Name in the Project; required with contentBase64; defaults to the file's name"),
});

function fileEditTool(maxUploadBytes: () => number): McpTool<z.infer<typeof FileInput>> {
  const upload = operationNamed("upload");
  return {
    name: "app_file_edit",
    description:
      'Import a media file (image, video, audio) into a Project; the answer\'s edits[0].created.fileId is the new file, for clip.add (app_clip_edit) or song.add/song.update audioFileId (app_song_edit). Give either path, a file on the show machine (only a client on that machine may), or contentBase64 with name (the bytes themselves, for small files). Example: {"path": "/home/show/media/intro.mp4"}; {"contentBase64": "iVBORw0KGgo...", "name": "logo.png"}',
    annotations: changeAnnotations("Import media", false),
    operation: edit,
    reaches: [edit, upload],
    input: FileInput,
    parse: (raw) => {
      const input = parseInput(FileInput, raw);
      if ((input.path === undefined) === (input.contentBase64 === undefined)) {
        throw new CueportError(
          "INVALID_MESSAGE",
          "Invalid path: give either path or contentBase64",
          {
            field: "path",
          },
        );
      }
      if (input.contentBase64 !== undefined && input.name === undefined) {
        throw new CueportError("INVALID_MESSAGE", "Invalid name: is required with contentBase64", {
          field: "name",
        });
      }
      return input;
    },
    output: EditResultView,
    call: async ({ projectId, path, contentBase64, name }, ctx) => {
      if (path !== undefined) {
        const body: Record<string, unknown> = {
          name: "file.import",
          params: name === undefined ? { path } : { path, name },
        };
        if (projectId !== undefined) body.projectID = projectId;
        return { structured: await ctx.run(edit, body) as Record<string, unknown> };
      }
      const bytes = new Uint8Array(Buffer.from(contentBase64!, "base64"));
      const answer = await ctx.run(upload, {
        chunks: (async function* () {
          yield bytes;
        })(),
        name,
        projectID: projectId,
        maxBytes: maxUploadBytes(),
        expectedBytes: bytes.length,
      });
      return { structured: answer as Record<string, unknown> };
    },
  };
}

/** Every edit tool; `maxUploadBytes` bounds an import's bytes as it bounds uploads. */
// long: the table of the edit tools, one entry each with its description and example
export function editTools(maxUploadBytes: () => number): AnyTool[] {
  return [
    editGroupTool({
      name: "app_clip_edit",
      title: "Edit Clips",
      edits: inGroup("clips"),
      intro:
        "Add, move, duplicate and delete Clips, and update a Clip's name, media, launch mode, retrigger, direction, loop, velocity sensitivity and options (opacity, volume, speed, filters brightness/contrast/saturation/hue/blur, effects by Effect id).",
      example:
        '{"edits": [{"name": "clip.update", "params": {"clipID": "clip-intro", "options": {"filters": {"blur": 4}, "effects": ["fx-1"]}}}]}',
      isDestructive: true,
    }),
    editGroupTool({
      name: "app_song_edit",
      title: "Edit Songs",
      edits: inGroup("songs"),
      intro:
        "Build a set list: add, move, duplicate and delete Songs; change titles, Program Identifiers, audio and a Song's Background Clip; replace a Song's timeline of cues or its timed lyrics.",
      example:
        '{"edits": [{"name": "song.add", "params": {"title": "Encore", "pgmId": "12"}}, {"name": "song.move", "params": {"songID": "song-1", "position": 0}}]}',
      isDestructive: true,
    }),
    editGroupTool({
      name: "app_project_edit",
      title: "Edit the Project",
      edits: inGroup("project", "controls"),
      intro:
        "Undo and redo (a batch is one step), rename the Project, set display options (width, height, fps, background color), the timeline zoom and the Background Clips, and set Controls A-Z (name, clamping, Targets). Also the Projects themselves: create, duplicate, delete (projectId required), restore, close (projectId required) and open, each alone in its call.",
      example:
        '{"edits": [{"name": "project.undo", "params": {}}]}; {"edits": [{"name": "project.set_display", "params": {"width": 1280, "height": 720}}]}; {"edits": [{"name": "project.create", "params": {"name": "Summer Tour"}}]}',
      isDestructive: false,
    }),
    editGroupTool({
      name: "app_effect_edit",
      title: "Edit Effects",
      edits: [...inGroup("effects"), ...PRESET_CHANGES],
      kind: "effect",
      intro:
        "Add an Effect to the Project from a preset, update its name, enabled state or parameter values, remove or copy it, bind its image inputs (effect.set_input); and add, update (code, parameters) or remove user effect presets. A preset open in the editor (app_open_editor) shows the change at once.",
      example:
        '{"edits": [{"name": "effect.add", "params": {"presetID": "fx-blur", "params": {"radius": 8}}}]}',
      isDestructive: true,
    }),
    editGroupTool({
      name: "app_visualizer_edit",
      title: "Edit Visualizers",
      edits: [...inGroup("visualizers"), ...PRESET_CHANGES],
      kind: "visualizer",
      intro:
        "Add a Visualizer to the Project from a preset, update its name, enabled state or parameter values, remove or copy it, bind its image inputs (visualizer.set_input); and add, update (code, parameters) or remove user visualizer presets. A preset open in the editor (app_open_editor) shows the change at once.",
      example:
        '{"edits": [{"name": "visualizer.copy", "params": {"visualizerID": "viz-1", "name": "Bars wide"}}]}',
      isDestructive: true,
    }),
    editGroupTool({
      name: "app_preset_edit",
      title: "Edit user presets",
      edits: PRESET_CHANGES,
      intro:
        "Add, update and remove user presets (Effects and Visualizers) in the preset store shared by every Project; built-in presets cannot change; preset.import adds an ISF file (.fs) on the show machine. Check a new definition with app_validate_preset first; bad ISF code is refused as INVALID_SHADER with details.problems at lines and columns.",
      example:
        '{"edits": [{"name": "preset.remove", "params": {"kind": "effect", "presetID": "fx-user-1"}}]}',
      isDestructive: true,
    }),
    fileEditTool(maxUploadBytes),
    describeEditTool(),
    validatePresetTool(),
  ];
}

/**
 * The query tools: each is one query operation of the catalog (input and
 * output schemas from it), plus the Clip tools' thumbnails from the
 * `thumbnail` media operation.
 * @module
 */
import { Buffer } from "node:buffer";
import { z } from "zod";
import {
  type AnyOperation,
  ClipDetailView,
  MediaImage,
  operationNamed,
  PresetView,
} from "../core/mod.ts";
import {
  type AnyTool,
  type McpTool,
  operationTool,
  readAnnotations,
  type ToolContext,
} from "./tool.ts";

/** A query tool that answers exactly what its operation answers. */
function queryTool(
  name: string,
  operationName: string,
  title: string,
  description: string,
): AnyTool {
  return operationTool(
    { name, description, annotations: readAnnotations(title) },
    operationNamed(operationName),
  );
}

/** How many thumbnails one answer carries at most (the rest: call app_get_clip). */
export const MAX_THUMBNAILS = 8;
const THUMBNAIL_SIZE = 128;

type ClipDetail = z.infer<typeof ClipDetailView>;

/** Thumbnails of the Clips that have a file, as image content; a picture that fails is left out. */
async function thumbnailsOf(
  clips: readonly ClipDetail[],
  projectId: string | undefined,
  ctx: ToolContext,
  thumbnail: AnyOperation,
) {
  const project = projectId ?? ctx.activeProjectId();
  if (project === null) return [];
  const files = [...new Set(clips.map((c) => c.fileId).filter((f): f is string => f !== null))]
    .slice(0, MAX_THUMBNAILS);
  const pictures = await Promise.all(files.map(async (fileId) => {
    try {
      const answer = await ctx.run(thumbnail, {
        projectId: project,
        fileId,
        size: THUMBNAIL_SIZE,
        format: "jpeg",
      });
      return answer instanceof MediaImage
        ? { data: Buffer.from(answer.bytes).toString("base64"), mimeType: answer.contentType }
        : null;
    } catch {
      return null; // a missing or broken file: the Clip's JSON still says what it is
    }
  }));
  return pictures.filter((p) => p !== null);
}

const Thumbnails = z.boolean().default(true).describe(
  `Also answer a ${THUMBNAIL_SIZE}px JPEG thumbnail of each Clip's file as image content (at most ${MAX_THUMBNAILS})`,
);

function clipsTool(): McpTool<
  { projectId?: string; ids: string[]; thumbnails: boolean }
> {
  const clips = operationNamed("clips");
  const thumbnail = operationNamed("thumbnail");
  return {
    name: "app_get_clips",
    description:
      'Get several Clips by id, in the order given: settings (launch mode, retrigger, direction, loop, velocity sensitivity), options (opacity, volume, speed, filters, effects), file and current play state, with a thumbnail of each Clip\'s picture. Use it after app_get_song or app_get_project to look at Clips in detail. Example: {"ids": ["clip-intro", "clip-verse"]}',
    annotations: readAnnotations("Get Clips"),
    operation: clips,
    reaches: [clips, thumbnail],
    input: (clips.input as z.ZodObject).extend({ thumbnails: Thumbnails }),
    output: clips.output,
    call: async ({ thumbnails, ...input }, ctx) => {
      const answer = await ctx.run(clips, input) as { clips: ClipDetail[] };
      const images = thumbnails
        ? await thumbnailsOf(answer.clips, input.projectId, ctx, thumbnail)
        : [];
      return { structured: answer, images };
    },
  };
}

/** What a tool's description says of an older spelling it still accepts. */
function deprecated(old: string, now: string): string {
  return ` Deprecated: "${old}" (the older spelling of "${now}") is still accepted for now; send "${now}".`;
}

function clipTool(): McpTool<{ projectId?: string; clipID: string; thumbnails: boolean }> {
  const clips = operationNamed("clips");
  const thumbnail = operationNamed("thumbnail");
  return {
    name: "app_get_clip",
    description:
      'Get one Clip by id: settings, options (filters, effects), file and current play state, with a thumbnail of its picture. Use app_get_song first to find Clip ids. Example: {"clipID": "clip-intro"}' +
      deprecated("clipId", "clipID"),
    annotations: readAnnotations("Get a Clip"),
    operation: clips,
    reaches: [clips, thumbnail],
    input: z.strictObject({
      projectId: z.string().min(1).optional().describe("Omitted means the active Project"),
      clipID: z.string().min(1).describe("Clip id"),
      thumbnails: Thumbnails,
    }),
    renamed: { clipId: "clipID" },
    output: ClipDetailView,
    call: async ({ clipID, thumbnails, projectId }, ctx) => {
      const input = projectId === undefined ? { ids: [clipID] } : { projectId, ids: [clipID] };
      const answer = await ctx.run(clips, input) as { clips: ClipDetail[] };
      const images = thumbnails ? await thumbnailsOf(answer.clips, projectId, ctx, thumbnail) : [];
      return { structured: answer.clips[0]!, images };
    },
  };
}

function songTool(): McpTool<{ projectId?: string; songID: string; thumbnails: boolean }> {
  const song = operationNamed("song");
  const thumbnail = operationNamed("thumbnail");
  return {
    name: "app_get_song",
    description:
      'Get one Song with its timeline of cues, its timed lyrics and its Clips in full, with a thumbnail of each Clip\'s picture. Example: {"songID": "song-1"}' +
      deprecated("songId", "songID"),
    annotations: readAnnotations("Get a Song"),
    operation: song,
    reaches: [song, thumbnail],
    input: (song.input as z.ZodObject).extend({ thumbnails: Thumbnails }),
    ...(song.renamed ? { renamed: song.renamed } : {}),
    output: song.output,
    call: async ({ thumbnails, ...input }, ctx) => {
      const answer = await ctx.run(song, input) as { clips: ClipDetail[] };
      const images = thumbnails
        ? await thumbnailsOf(answer.clips, input.projectId, ctx, thumbnail)
        : [];
      return { structured: answer, images };
    },
  };
}

const PresetControlsView = z.strictObject({
  presetId: z.string(),
  kind: PresetView.shape.kind,
  name: z.string(),
  parameters: PresetView.shape.parameters,
});

function presetControlsTool(): McpTool<{ kind: string; presetId: string }> {
  const preset = operationNamed("preset");
  return {
    name: "app_get_preset_controls",
    description:
      'Get the parameters a preset exposes (name, type number/boolean/color/enum, range, options, default): what app_effect_edit and app_visualizer_edit may set in an Effect\'s or Visualizer\'s params. Example: {"kind": "effect", "presetId": "fx-blur"}',
    annotations: readAnnotations("Get a preset's parameters"),
    operation: preset,
    reaches: [preset],
    input: preset.input as z.ZodObject,
    output: PresetControlsView,
    call: async (input, ctx) => {
      const view = await ctx.run(preset, input) as z.infer<typeof PresetView>;
      return {
        structured: {
          presetId: view.presetId,
          kind: view.kind,
          name: view.name,
          parameters: view.parameters,
        },
      };
    },
  };
}

const PROJECT = 'Omit projectId for the active Project. Example: {"projectId": "demo"} or {}';

/** Every query tool, in the spec's order. */
// long: the table of the spec's query tools, one entry each, in its order
export function queryTools(): AnyTool[] {
  return [
    queryTool(
      "app_get_projects",
      "projects",
      "List Projects",
      "List every open Project: id, name, Song and Clip counts, and which one is active. Start here to learn the projectId the other tools take. Example: {}",
    ),
    queryTool(
      "app_get_project",
      "project",
      "Get a Project",
      `Get a whole Project: its Songs (with timelines and lyrics), Clips, media files, Effects, Visualizers, Background Clips, Controls A-Z and display options. Large; use app_get_project_summary for names and counts only. ${PROJECT}`,
    ),
    queryTool(
      "app_get_project_summary",
      "summary",
      "Get a Project summary",
      `Get a Project's names and counts only: the Song list in order with Clip counts. The cheap way to see a set list. ${PROJECT}`,
    ),
    queryTool(
      "app_get_active_project",
      "active",
      "Get the active Project",
      "Get the active Project in full with its play state (what plays, positions, the active Song). Use it to see what is on stage now. Example: {}",
    ),
    queryTool(
      "app_get_playstate",
      "playstate",
      "Get the play state",
      `Get what plays in a Project: the active Song and its position, each playing or paused Clip with position, duration and direction, and the last value of each Control. Call it after app_playback to check the effect. ${PROJECT}`,
    ),
    queryTool(
      "app_get_app_state",
      "appState",
      "Get the app state",
      "Get the application's state: full screen, mute, output volume, recording, the open preset editor and window reloads. Call it after app_system or app_open_editor. Example: {}",
    ),
    queryTool(
      "app_get_songs",
      "songs",
      "List Songs",
      `List the Songs of a Project in order: id, title, position, Program Identifier, Clip ids, audio, timeline and lyrics. ${PROJECT}`,
    ),
    songTool(),
    clipsTool(),
    clipTool(),
    queryTool(
      "app_get_effects",
      "effects",
      "List Effects",
      `List the Effects of a Project: id, name, type, preset link, enabled, parameter values. Ids go into app_effect_edit and into a Clip's options.effects. ${PROJECT}`,
    ),
    queryTool(
      "app_get_visualizers",
      "visualizers",
      "List Visualizers",
      `List the Visualizers of a Project: id, name, engine, preset link, enabled, parameter values. ${PROJECT}`,
    ),
    queryTool(
      "app_get_presets",
      "presets",
      "List presets",
      "List every preset (Effect, Visualizer, transition and generator), built-in and user: id, kind, name, type, parameters, code and vertexCode. A preset id goes into effect.add or visualizer.add (app_effect_edit, app_visualizer_edit) and app_open_editor. Example: {}",
    ),
    queryTool(
      "app_get_preset",
      "preset",
      "Get a preset",
      'Get one preset by kind and id, with its parameters and code. Example: {"kind": "visualizer", "presetId": "viz-bars"}',
    ),
    presetControlsTool(),
  ];
}

/**
 * The query operations: every read of the API, answered from the read
 * model. The WebSocket `query` names are these operations' names.
 * @module
 */
import { z } from "zod";
import { CueportError } from "../errors.ts";
import {
  AppStateSchema,
  CameraView,
  ClipDetailView,
  EffectView,
  PlayStateView,
  PresetView,
  ProjectListItemView,
  ProjectSummaryView,
  ProjectView,
  SongDetailView,
  SongView,
  VisualizerView,
} from "../views.ts";
import { ImportJobView } from "../imports.ts";
import { type AnyOperation, defineOperation, type OperationContext } from "./operation.ts";

/** `{[key]: item[]}`: how lists are answered. */
function list<T extends z.ZodType>(key: string, item: T) {
  return z.strictObject({ [key]: z.array(item) });
}

const ProjectInput = z.strictObject({
  projectId: z.string().min(1).optional().describe("Omitted means the active Project"),
});

/** The Project asked for, or the active one. */
function projectOf(ctx: OperationContext, input: { projectId?: string | undefined }): string {
  const id = input.projectId ?? ctx.core.model.activeProjectId;
  if (!id) {
    throw new CueportError(
      "INVALID_MESSAGE",
      "Invalid projectId: is required while no Project is active",
      { field: "projectId" },
    );
  }
  return id;
}

const NoInput = z.strictObject({});

/** Every query operation, in the order `/api/v1/info` lists their routes. */
export const QUERY_OPERATIONS: readonly AnyOperation[] = [
  defineOperation({
    name: "projects",
    summary:
      "Every open Project (and every damaged one): id, name, counts, active flag, state; all=true adds the closed and deleted ones",
    tag: "projects",
    kind: "query",
    input: z.strictObject({
      all: z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")])
        .optional().describe(
          "true: list the closed and deleted Projects of the library too",
        ),
    }),
    output: list("projects", ProjectListItemView),
    run: ({ core }, input) => ({ projects: core.queries.projects(input.all === true) }),
  }),
  defineOperation({
    name: "project",
    summary: "A Project in full: Songs, Clips, files, Effects, Visualizers, Controls, display",
    tag: "projects",
    kind: "query",
    input: ProjectInput,
    output: ProjectView,
    run: (ctx, input) => ctx.core.queries.project(projectOf(ctx, input)),
  }),
  defineOperation({
    name: "summary",
    since: "6.0",
    summary: "Names and counts only",
    tag: "projects",
    kind: "query",
    input: ProjectInput,
    output: ProjectSummaryView,
    run: (ctx, input) => ctx.core.queries.summary(projectOf(ctx, input)),
  }),
  defineOperation({
    name: "playstate",
    summary: "What is playing, positions, durations, directions",
    tag: "playback",
    kind: "query",
    input: ProjectInput,
    output: PlayStateView,
    run: (ctx, input) => ctx.core.queries.playstate(projectOf(ctx, input)),
  }),
  defineOperation({
    name: "active",
    summary: "The active Project and its play state together",
    tag: "playback",
    kind: "query",
    input: NoInput,
    output: z.strictObject({ project: ProjectView, playstate: PlayStateView }),
    run: ({ core }) => core.queries.active(),
  }),
  defineOperation({
    name: "appState",
    since: "6.0",
    summary: "Full screen, mute, volume, recording, editor",
    tag: "playback",
    kind: "query",
    input: NoInput,
    output: AppStateSchema,
    run: ({ core }) => core.queries.appState(),
  }),
  defineOperation({
    name: "songs",
    summary: "The Songs of a Project",
    tag: "songs",
    kind: "query",
    input: ProjectInput,
    output: list("songs", SongView),
    run: (ctx, input) => ({ songs: ctx.core.queries.songs(projectOf(ctx, input)) }),
  }),
  defineOperation({
    name: "song",
    summary: "One Song with its timeline, lyrics and Clips",
    tag: "songs",
    kind: "query",
    input: ProjectInput.extend({ songID: z.string().min(1).describe("Song id") }),
    renamed: { songId: "songID" },
    output: SongDetailView,
    run: (ctx, input) => ctx.core.queries.song(projectOf(ctx, input), input.songID),
  }),
  defineOperation({
    name: "clips",
    summary: "Only the Clips named in ids (required, comma-separated), in that order",
    tag: "clips",
    kind: "query",
    input: ProjectInput.extend({
      ids: z.array(z.string().min(1), { error: "is required: a list of Clip ids" })
        .min(1, { error: "is required: at least one Clip id" })
        .describe("Clip ids"),
    }),
    output: list("clips", ClipDetailView),
    run: (ctx, input) => ({ clips: ctx.core.queries.clips(projectOf(ctx, input), input.ids) }),
  }),
  defineOperation({
    name: "effects",
    summary: "Effects of a Project",
    tag: "effects",
    kind: "query",
    input: ProjectInput,
    output: list("effects", EffectView),
    run: (ctx, input) => ({ effects: ctx.core.queries.effects(projectOf(ctx, input)) }),
  }),
  defineOperation({
    name: "visualizers",
    summary: "Visualizers of a Project",
    tag: "effects",
    kind: "query",
    input: ProjectInput,
    output: list("visualizers", VisualizerView),
    run: (ctx, input) => ({ visualizers: ctx.core.queries.visualizers(projectOf(ctx, input)) }),
  }),
  defineOperation({
    name: "presets",
    since: "6.0",
    summary: "Effect and Visualizer presets",
    tag: "effects",
    kind: "query",
    input: NoInput,
    output: list("presets", PresetView),
    run: ({ core }) => ({ presets: core.queries.presets() }),
  }),
  defineOperation({
    name: "preset",
    since: "6.0",
    summary: "One preset; kind is effect, visualizer, transition or generator",
    tag: "effects",
    kind: "query",
    // The kind is checked by the query, which names the kinds in its message.
    input: z.strictObject({ kind: z.string(), presetId: z.string().min(1) }),
    output: PresetView,
    run: ({ core }, input) => core.queries.preset(input.kind, input.presetId),
  }),
  defineOperation({
    name: "cameras",
    summary: "Cameras with device ids and labels",
    tag: "cameras",
    kind: "query",
    input: NoInput,
    output: list("cameras", CameraView),
    run: ({ core }) => ({ cameras: core.queries.cameras() }),
  }),
  defineOperation({
    name: "imports",
    since: "6.0",
    summary:
      "Imports and uploads under way, with bytes so far, oldest first; a finished one leaves the list",
    tag: "edits",
    kind: "query",
    input: NoInput,
    output: list("imports", ImportJobView),
    run: ({ core }) => ({ imports: core.queries.imports() }),
  }),
];

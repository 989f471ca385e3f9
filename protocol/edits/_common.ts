/**
 * Building blocks of the edit catalog: the declaration helper and the
 * parameter schemas several edits share.
 * @module
 */
import { z } from "zod";
import { Id, MAX_TRANSITION_SECONDS, Transition } from "../model.ts";

/** The groups of the catalog (the MCP edit tools follow them). */
export type EditGroup =
  | "clips"
  | "songs"
  | "project"
  | "effects"
  | "visualizers"
  | "presets"
  | "controls"
  | "files";

/** One edit of the catalog, declared once. */
export interface EditSpec {
  name: string;
  group: EditGroup;
  summary: string;
  /** Validates the edit's `params` object; the JSON Schema answers come from it. */
  params: z.ZodObject;
  /** True for edits that are not recorded in the history themselves (undo, redo, validate). */
  isHistoryControl?: boolean;
  /** True for edits only clients on the show machine may send (they name local paths). */
  isLocalOnly?: boolean;
}

/** Declares one edit; `shape` becomes a strict object schema. */
export function edit(
  name: string,
  group: EditGroup,
  summary: string,
  shape: z.ZodRawShape,
  flags: Pick<EditSpec, "isHistoryControl" | "isLocalOnly"> = {},
): EditSpec {
  return { name, group, summary, params: z.strictObject(shape), ...flags };
}

/** A zero-based position in a list; omitted appends. */
export const Position = z.number().int().min(0)
  .describe("Zero-based position in the list; omitted appends at the end");

/** References by id. */
export const ClipRef = Id.describe("Id of a Clip of the Project");
export const SongRef = Id.describe("Id of a Song of the Project");
export const FileRef = Id.describe("Id of a media file of the Project");

/** A free-text name. */
export const Name = z.string().trim().min(1).max(200);

/** A transition an edit sets (`protocol/model.ts` Transition); null: a cut. */
export const TransitionInput = z.strictObject({
  presetId: Transition.shape.presetId.describe(
    'Id of a transition preset (kind "transition"; built-ins tr-dissolve, tr-wipe)',
  ),
  duration: Transition.shape.duration.describe(`Seconds, up to ${MAX_TRANSITION_SECONDS}`),
  params: Transition.shape.params
    .describe("The preset's parameters by name (progress is the player's); omitted: defaults"),
}).nullable();

/** A value of an Effect, Visualizer or preset parameter. */
export const ParamValue = z.union([z.number(), z.string(), z.boolean()]);

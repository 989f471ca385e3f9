/**
 * The edit catalog (`POST /api/v1/edit`), declared once: the server and the
 * player validate with these schemas, and `/api/v1/edit/schema` answers are
 * generated from them. Edit parameters are always zero-based.
 * @module
 */
import { z } from "zod";
import { CLIP_EDITS } from "./clips.ts";
import { CONTROL_EDITS } from "./controls.ts";
import { FILE_EDITS } from "./files.ts";
import { FX_EDITS } from "./fx.ts";
import { GENERATOR_EDITS } from "./generators.ts";
import { PRESET_EDITS } from "./presets.ts";
import { PROJECT_EDITS } from "./project.ts";
import { SONG_EDITS } from "./songs.ts";
import { PROJECT_TIMECODE_EDITS, SONG_TIMECODE_EDITS } from "./timecode.ts";
import type { EditSpec } from "./_common.ts";

export type { EditGroup, EditSpec } from "./_common.ts";
export { PresetInput } from "./presets.ts";
export {
  EditApplyParams,
  EditApplyResult,
  EditOutcome,
  EditRequest,
  MAX_BATCH_EDITS,
} from "./apply.ts";

/** Every edit, by group. */
export const EDITS: readonly EditSpec[] = [
  ...CLIP_EDITS,
  ...GENERATOR_EDITS,
  ...SONG_EDITS,
  ...SONG_TIMECODE_EDITS,
  ...PROJECT_EDITS,
  ...PROJECT_TIMECODE_EDITS,
  ...FX_EDITS,
  ...PRESET_EDITS,
  ...CONTROL_EDITS,
  ...FILE_EDITS,
];

/** Edits by name. */
export const EDITS_BY_NAME: ReadonlyMap<string, EditSpec> = new Map(EDITS.map((e) => [e.name, e]));

/** The JSON Schema of one edit's parameters (input form: defaults are optional). */
export function editJsonSchema(spec: EditSpec): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(spec.params, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return rest;
}

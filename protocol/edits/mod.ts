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
import { PRESET_EDITS } from "./presets.ts";
import { PROJECT_EDITS } from "./project.ts";
import { SONG_EDITS } from "./songs.ts";
import type { EditSpec } from "./_common.ts";

export type { EditGroup, EditSpec } from "./_common.ts";
export { PresetInput } from "./presets.ts";

/** Every edit, by group. */
export const EDITS: readonly EditSpec[] = [
  ...CLIP_EDITS,
  ...SONG_EDITS,
  ...PROJECT_EDITS,
  ...FX_EDITS,
  ...PRESET_EDITS,
  ...CONTROL_EDITS,
  ...FILE_EDITS,
];

/** Edits by name. */
export const EDITS_BY_NAME: ReadonlyMap<string, EditSpec> = new Map(EDITS.map((e) => [e.name, e]));

/** The most edits one batch may hold. */
export const MAX_BATCH_EDITS = 100;

/** One edit as sent: a name and an object of named parameters. */
export interface EditRequest {
  name: string;
  params: Record<string, unknown>;
}

/** The `edit.apply` parameters of the player protocol. */
export interface EditApplyParams {
  /** Target Project; null means the active one. */
  projectId: string | null;
  edits: EditRequest[];
  /** True for a file that was uploaded to a staging path: the player moves it instead of copying. */
  isUpload?: boolean;
  /**
   * The client's retry key (protocol 1.2): a player applies a key at most once
   * and answers a repeat with the first result (docs/player-protocol.md).
   */
  idempotencyKey?: string;
}

/** What one edit did. */
export interface EditOutcome {
  name: string;
  message: string;
  /** Ids of the items it created, by field name (`clipID`, `songID`, `fileId`, ...). */
  created?: Record<string, string>;
  /** A value beyond the message (`preset.validate`: `{valid, problems}`). */
  result?: unknown;
}

/** The `edit.apply` result. */
export interface EditApplyResult {
  projectId: string;
  /** The Project's revision after the edit (unchanged when nothing changed). */
  revision: number;
  edits: EditOutcome[];
  /** What changed, by kind: ids of items set or removed. */
  changed: {
    clips: string[];
    songs: string[];
    fields: string[];
    presets: string[];
  };
  /** Steps that can be undone and redone now. */
  history: { undo: number; redo: number };
}

/** The JSON Schema of one edit's parameters (input form: defaults are optional). */
export function editJsonSchema(spec: EditSpec): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(spec.params, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return rest;
}

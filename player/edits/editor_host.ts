/**
 * What the editor needs from the application, and the options of one batch:
 * shared by the editor (`mod.ts`) and its parts.
 * @module
 */
import type { EditApplyResult } from "../../protocol/edits/mod.ts";
import type { Preset, Project } from "../../protocol/model.ts";
import type { ProjectPatch } from "../../protocol/patch.ts";
import type { StateUpdate } from "../../protocol/state.ts";
import type { ProjectEngine } from "../engine/project_engine.ts";
import type { ProjectStore } from "../store.ts";
import type { ParsedEdit } from "./parse.ts";

/** What the editor needs from the application. */
export interface EditorHost {
  readonly store: ProjectStore;
  readonly builtInPresets: readonly Preset[];
  /** The engine of a Project (null: the active one). @throws {Refusal} NOT_FOUND */
  engine(projectId: string | null): ProjectEngine;
  /** Every open Project, as it is now. */
  projects(): readonly Project[];
  userPresets(): Preset[];
  setUserPresets(presets: Preset[]): void;
  emit(update: StateUpdate): void;
  /** Called after the user presets changed (the open editor follows them). */
  presetsChanged(patch: ProjectPatch): void;
  historyLimit: number;
  /** The output's texture budget for all Effects and Visualizers, bytes (`texture_budget.ts`). */
  textureBudgetBytes: number;
  log(message: string): void;
  /** The cameras' device ids now (an image input bound to one is checked; absent: not). */
  cameras?(): readonly string[];
  /** Runs a lifecycle edit (`player/library/lifecycle.ts`) in the editor's turn; `projectId` is the batch's. */
  lifecycle(edit: ParsedEdit, projectId: string | null): Promise<EditApplyResult>;
}

/** Options of one batch. */
export interface EditOptions {
  /**
   * Import progress, sent at once (not held until the answer): the update for
   * clients, and the batch's bytes copied and in all.
   */
  onProgress?: (update: StateUpdate, done: number, total: number) => void;
  /** Stops copies in progress (the service went away); their partial files are removed. */
  signal?: AbortSignal;
}

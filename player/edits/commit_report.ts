/**
 * What a commit tells: the state updates of a committed step (the Project,
 * each Clip and Song it changed, the presets) and the answer to its batch.
 * @module
 */
import type { EditApplyResult, EditOutcome } from "../../protocol/edits/mod.ts";
import type { Preset, Project } from "../../protocol/model.ts";
import type { ProjectPatch } from "../../protocol/patch.ts";
import type { StateUpdate } from "../../protocol/state.ts";
import type { History } from "./history.ts";

/**
 * Sends the updates of a step committed to `project` by `patch` (`edits` its
 * edits' names); `presets` are all presets after it, read when it changed them.
 */
export function reportCommit(
  emit: (update: StateUpdate) => void,
  step: { project: Project; patch: ProjectPatch; edits: string[] },
  presets: () => Preset[],
): void {
  const { project, patch, edits } = step;
  const { id: projectId, revision } = project;
  emit({
    updateType: "project",
    projectId,
    data: { event: "project-edited", revision, edits, patch },
  });
  for (const [clipID, clip] of Object.entries(patch.clips ?? {})) {
    emit({
      updateType: "clip",
      projectId,
      data: clip
        ? { event: "clip-changed", clipID, clip, revision }
        : { event: "clip-removed", clipID, revision },
    });
  }
  for (const [songID, song] of Object.entries(patch.songs ?? {})) {
    const position = project.songs.findIndex((s) => s.id === songID);
    emit({
      updateType: "song",
      projectId,
      data: song
        ? { event: "song-changed", songID, song, position, revision }
        : { event: "song-removed", songID, revision },
    });
  }
  if (patch.presets) {
    emit({
      updateType: "presets",
      projectId: null,
      data: { event: "presets-changed", changed: Object.keys(patch.presets), presets: presets() },
    });
  }
}

/** The answer to a batch; `history` is the Project's after it. */
export function batchResult(
  at: { id: string; revision: number },
  edits: EditOutcome[],
  patch: ProjectPatch | null,
  history: History,
): EditApplyResult {
  return {
    projectId: at.id,
    revision: at.revision,
    edits,
    changed: {
      clips: Object.keys(patch?.clips ?? {}),
      songs: Object.keys(patch?.songs ?? {}),
      fields: [
        ...Object.keys(patch?.fields ?? {}),
        ...(patch?.songOrder ? ["songOrder"] : []),
      ],
      presets: Object.keys(patch?.presets ?? {}),
    },
    history: { undo: history.undo.length, redo: history.redo.length },
  };
}

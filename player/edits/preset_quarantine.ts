/**
 * The quarantine of user presets (`Preset.quarantine`): set by the player when
 * a preset's shader stopped the output's frames (not an edit: no history, no
 * revision), cleared only by an edit of the preset's `code` or `vertexCode`. Undo and redo
 * restore presets as history holds them: a preset they bring back with the
 * code that is quarantined now stays quarantined, so no step puts that shader
 * back on the output.
 * @module
 */
import type { Preset } from "../../protocol/model.ts";
import type { ProjectPatch } from "../../protocol/patch.ts";

/**
 * The quarantine after `before` became `after` by an edit: gone when the code (or the
 * vertex shader, `vertexCode`) changed.
 */
export function quarantineAfterEdit(before: Preset, after: Preset): Preset["quarantine"] {
  const isSame = after.code === before.code && after.vertexCode === before.vertexCode;
  return isSame ? before.quarantine : null;
}

/**
 * The presets an undo or redo makes (`after`), each one that has the code (and vertex shader)
 * a quarantined preset of `now` has keeping that quarantine.
 */
export function keepQuarantines(now: readonly Preset[], after: Preset[]): Preset[] {
  const held = new Map(now.filter((p) => p.quarantine).map((p) => [p.id, p]));
  return after.map((p) => {
    const q = held.get(p.id);
    if (!q || p.quarantine || q.code !== p.code || q.vertexCode !== p.vertexCode) return p;
    return { ...p, quarantine: q.quarantine };
  });
}

/**
 * `patch`, the way back of a step just undone or redone (its redo or undo), with each preset
 * it sets to the code (and vertex shader) of a quarantined preset of `now` keeping that
 * quarantine: a redo after an undo, or an undo after a redo, puts no shader that stalled back.
 */
export function withQuarantinesOf(now: readonly Preset[], patch: ProjectPatch): ProjectPatch {
  if (!patch.presets) return patch;
  const set = Object.entries(patch.presets).map((
    [id, p],
  ) => [id, p && keepQuarantines(now, [p])[0]]);
  return { ...patch, presets: Object.fromEntries(set) };
}

/**
 * Normalization applied to every loaded project.
 * @module
 */
import { CONTROL_IDS } from "../protocol/action_rules.ts";
import { Control, type Project } from "../protocol/model.ts";

/** Returns the project with all 26 Controls present, A to Z, in order. */
export function ensureControls(project: Project): Project {
  const byId = new Map(project.controls.map((c) => [c.id, c]));
  const controls = CONTROL_IDS.map((id) => byId.get(id) ?? Control.parse({ id }));
  return { ...project, controls };
}

/**
 * The rule that a step never takes away a preset an Effect or Visualizer of
 * an open Project still links.
 * @module
 */
import type { Preset, Project } from "../../protocol/model.ts";
import { Refusal } from "../errors.ts";

/**
 * Refuses a step that would take away a preset an Effect or Visualizer
 * still links: `preset.remove` unlinks its own Project's, but a step cannot
 * change another Project (nor its undo history), so the user removes the item there first.
 * Undoing a `preset.add` and redoing a `preset.remove` are held to the same rule.
 * @throws {Refusal} naming the preset, the item and its Project
 */
export function refuseBrokenLinks(
  after: { project: Project; presets: Preset[] },
  open: { builtInPresets: readonly Preset[]; projects(): readonly Project[] },
): void {
  const known = new Set([...open.builtInPresets, ...after.presets].map((p) => p.id));
  for (const each of open.projects()) {
    const project = each.id === after.project.id ? after.project : each;
    const links = [
      ...project.effects.map((item) => ({ item, what: "Effect" })),
      ...project.visualizers.map((item) => ({ item, what: "Visualizer" })),
    ];
    const broken = links.find(({ item }) => item.presetId !== null && !known.has(item.presetId));
    if (broken) {
      throw new Refusal(
        `Preset "${broken.item.presetId}" is used by ${broken.what} "${broken.item.id}" of Project "${project.id}": remove that ${broken.what} first`,
      );
    }
  }
}

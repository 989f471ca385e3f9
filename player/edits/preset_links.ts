/**
 * The rule that a step never takes away a preset an Effect, a Visualizer, a transition (a
 * Clip's, a Song's, the Project's) or a Clip's generator of an open Project still links.
 * @module
 */
import type { Preset, Project, Transition } from "../../protocol/model.ts";
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
    const broken = presetLinks(project).find((l) => l.presetId !== null && !known.has(l.presetId));
    if (broken) {
      throw new Refusal(
        `Preset "${broken.presetId}" is used by ${broken.what} of Project "${project.id}": ${broken.fix} first`,
      );
    }
  }
}

/** Each link of `project` to a preset: what links it, and what the user changes to unlink it. */
function presetLinks(
  project: Project,
): { presetId: string | null; what: string; fix: string }[] {
  const transition = (what: string, t: Transition | null | undefined) =>
    t ? [{ presetId: t.presetId, what, fix: `set that transition to null (a cut)` }] : [];
  return [
    ...project.effects.map((e) => ({
      presetId: e.presetId,
      what: `Effect "${e.id}"`,
      fix: "remove that Effect",
    })),
    ...project.visualizers.map((v) => ({
      presetId: v.presetId,
      what: `Visualizer "${v.id}"`,
      fix: "remove that Visualizer",
    })),
    ...project.clips.flatMap((c) =>
      transition(`the transition of Clip "${c.id}"`, c.options.transition)
    ),
    ...project.songs.flatMap((s) => transition(`the transition of Song "${s.id}"`, s.transition)),
    ...transition("the Project's default transition", project.transition),
    ...project.clips.flatMap((c) =>
      c.generator
        ? [{
          presetId: c.generator.presetId,
          what: `the generator of Clip "${c.id}"`,
          fix: "set that Clip's generator to null (clip.set_generator)",
        }]
        : []
    ),
  ];
}

/** Clears every generator of `project` through preset `presetId` (its Clips become placeholders). */
export function unlinkGenerators(project: Project, presetId: string): void {
  for (const clip of project.clips) {
    if (clip.generator?.presetId === presetId) delete clip.generator;
  }
}

/** Sets to null (a cut) every transition of `project` through preset `presetId`. */
export function unlinkTransitions(project: Project, presetId: string): void {
  for (const clip of project.clips) {
    if (clip.options.transition?.presetId === presetId) clip.options.transition = null;
  }
  for (const song of project.songs) {
    if (song.transition?.presetId === presetId) song.transition = null;
  }
  if (project.transition?.presetId === presetId) project.transition = null;
}

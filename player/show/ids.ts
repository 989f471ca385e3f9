/**
 * The ids a show file brings, against those here: a taken Project id gets
 * `-2`, `-3`...; a user preset whose id is taken by a preset of other content
 * gets a new id the same way (the Project's Effects and Visualizers follow),
 * while an identical one is reused and not added again.
 * @module
 */
import type { Preset, Project } from "../../protocol/model.ts";

/** `base` when free, else `base-2`, `base-3`... (at most 64 characters, the model's limit). */
export function freeId(base: string, isTaken: (id: string) => boolean): string {
  if (!isTaken(base)) return base;
  for (let n = 2;; n++) {
    const suffix = `-${n}`;
    const id = `${base.slice(0, 64 - suffix.length)}${suffix}`;
    if (!isTaken(id)) return id;
  }
}

/** What makes two presets the same preset (not their quarantine: that is this machine's verdict). */
export function contentOf(preset: Preset): string {
  const { kind, name, type, parameters, code } = preset;
  return JSON.stringify({ kind, name, type, parameters, code });
}

/** The presets a show adds, and the Project with its references to renamed ones rewritten. */
export interface PresetPlan {
  project: Project;
  toAdd: Preset[];
  renamed: { from: string; to: string }[];
}

/** Plans the presets of a show against `stored` (built-in and user presets here). */
export function planPresets(
  incoming: readonly Preset[],
  stored: readonly Preset[],
  project: Project,
): PresetPlan {
  const byId = new Map(stored.map((p) => [p.id, p]));
  const taken = (id: string) => byId.has(id);
  const toAdd: Preset[] = [];
  const renamed: { from: string; to: string }[] = [];
  for (const preset of incoming) {
    const here = byId.get(preset.id);
    if (here && contentOf(here) === contentOf(preset)) continue;
    const id = here ? freeId(preset.id, taken) : preset.id;
    if (id !== preset.id) renamed.push({ from: preset.id, to: id });
    const added = { ...preset, id, builtIn: false, quarantine: null };
    byId.set(id, added);
    toAdd.push(added);
  }
  if (renamed.length === 0) return { project, toAdd, renamed };
  const to = new Map(renamed.map((r) => [r.from, r.to]));
  const follow = <T extends { presetId: string | null }>(item: T): T =>
    item.presetId !== null && to.has(item.presetId)
      ? { ...item, presetId: to.get(item.presetId)! }
      : item;
  return {
    project: {
      ...project,
      effects: project.effects.map(follow),
      visualizers: project.visualizers.map(follow),
    },
    toAdd,
    renamed,
  };
}

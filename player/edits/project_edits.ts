/** Handlers of the Project and Control edits (undo and redo live in the editor). @module */
import { ACTIONS, TARGET_PATTERN } from "../../protocol/actions.ts";
import { isClipParameter, PARAMETER_HINT } from "../engine/controls.ts";
import { Refusal } from "../errors.ts";
import { defined, type EditHandler, findClip } from "./draft.ts";
import { checkedTransition } from "./transition_edits.ts";

/** The action names a MIDI binding may run. */
const ACTION_NAMES: ReadonlySet<string> = new Set(ACTIONS.map((a) => a.name));

/** Project and Control edit handlers by name. */
export const PROJECT_HANDLERS: Record<string, EditHandler> = {
  "project.rename": (d, p) => {
    d.project.name = p.name;
    return `Project renamed "${p.name}"`;
  },
  "project.set_display": (d, p) => {
    Object.assign(d.project.display, defined(p));
    return `Display options set: ${Object.keys(defined(p)).join(", ") || "nothing"}`;
  },
  "project.set_transition": (d, p) => {
    d.project.transition = checkedTransition(p.transition, "transition", d.presets);
    return d.project.transition
      ? `Default transition set: ${d.project.transition.presetId}, ${d.project.transition.duration} s`
      : "Default transition cleared: a cut";
  },
  "project.set_zoom": (d, p) => {
    d.project.display.zoom = p.zoom;
    return `Zoom set to ${p.zoom}`;
  },
  "project.set_background_clips": (d, p) => {
    const ids: string[] = p.clipIDs;
    for (const id of ids) findClip(d, id);
    if (new Set(ids).size !== ids.length) throw new Refusal("A Clip appears twice in clipIDs");
    d.project.backgroundClips = ids;
    return `Background Clips set: ${ids.length}`;
  },
  "project.set_midi": (d, p) => {
    for (const [i, b] of ((p.bindings ?? []) as Array<{ action: string }>).entries()) {
      if (!ACTION_NAMES.has(b.action)) {
        throw new Refusal(
          `Invalid bindings.${i}.action: no action "${b.action}"; GET /api/v1/actions lists them`,
        );
      }
    }
    Object.assign(d.project.midi, defined(p));
    return `MIDI map set: ${Object.keys(defined(p)).join(", ") || "nothing"}`;
  },
  "control.update": (d, p) => {
    const id = String(p.controlID).toUpperCase();
    const control = d.project.controls.find((c) => c.id === id)!;
    if (p.name !== undefined) control.name = p.name;
    if (p.clamp !== undefined) control.clamp = p.clamp;
    return `Control ${id} updated`;
  },
  "control.set_targets": (d, p) => {
    const id = String(p.controlID).toUpperCase();
    const control = d.project.controls.find((c) => c.id === id)!;
    for (const [i, t] of (p.targets as Array<{ target: string }>).entries()) {
      const m = TARGET_PATTERN.exec(t.target);
      if (!m) {
        throw new Refusal(
          `Invalid targets.${i}.target: "${t.target}" is not of the form clip:<clipId>/<parameter>`,
        );
      }
      const clip = findClip(d, m[1]!);
      if (!isClipParameter(d.project, clip, m[2]!, [...d.builtInPresets, ...d.presets])) {
        throw new Refusal(
          `Invalid targets.${i}.target: unknown parameter "${m[2]}"; use one of ${PARAMETER_HINT}`,
        );
      }
    }
    control.targets = p.targets;
    return `Control ${id}: ${control.targets.length} Target(s) set`;
  },
};

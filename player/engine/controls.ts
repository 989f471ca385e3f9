/**
 * How Controls A-Z shape a value onto their Targets, and which clip
 * parameters a Target may address.
 * @module
 */
import type { Clip, ControlTarget, Curve, Preset, Project } from "../../protocol/model.ts";
import { TARGET_PATTERN } from "../../protocol/actions.ts";

/** Numeric clip parameters a Target can write. */
export const CLIP_PARAMETERS: readonly string[] = [
  "opacity",
  "volume",
  "speed",
  "brightness",
  "contrast",
  "saturation",
  "hue",
  "blur",
];

/**
 * Whether `parameter` can be written on `clip`: one of `CLIP_PARAMETERS`;
 * `<effectId>.<name>`, a parameter of an Effect in the Clip's chain; or
 * `<visualizerId>.<name>`, a parameter of a Visualizer of the Project (drawn
 * over the whole output, so reached through any Clip); or `transition.<name>`, a
 * parameter of the transition the Clip enters through (its own, its Song's or the
 * Project's: the crossing drawn takes it); or `generator.<name>`, a parameter of the generator
 * preset the Clip plays. The parameter is its preset's or its own. The
 * output applies it (`docs/output.md`).
 */
export function isClipParameter(
  project: Project,
  clip: Clip,
  parameter: string,
  presets: readonly Preset[],
): boolean {
  if (CLIP_PARAMETERS.includes(parameter)) return true;
  const dot = parameter.indexOf(".");
  if (dot < 0) return false;
  const id = parameter.slice(0, dot);
  const name = parameter.slice(dot + 1);
  if (id === "transition") return isTransitionParameter(project, clip, name, presets);
  if (id === "generator") {
    const preset = presets.find((p) => p.id === clip.generator?.presetId);
    return !!preset?.parameters.some((p) => p.name === name);
  }
  const effect = clip.options.effects.includes(id)
    ? project.effects.find((e) => e.id === id)
    : undefined;
  const item = effect ?? project.visualizers.find((v) => v.id === id);
  if (!item) return false;
  const type = "type" in item ? item.type : item.engine;
  const preset = presets.find((p) => p.id === item.presetId) ??
    presets.find((p) => p.builtIn && p.type === type);
  return name in item.params || !!preset?.parameters.some((p) => p.name === name);
}

function isTransitionParameter(
  project: Project,
  clip: Clip,
  name: string,
  presets: readonly Preset[],
): boolean {
  const song = project.songs.find((s) => s.clips.includes(clip.id));
  const transition = clip.options.transition ?? song?.transition ?? project.transition;
  if (!transition) return false;
  const preset = presets.find((p) => p.id === transition.presetId);
  return name in transition.params || !!preset?.parameters.some((p) => p.name === name);
}

/** The words of the refusal of an unknown parameter. */
export const PARAMETER_HINT = `${
  CLIP_PARAMETERS.join(", ")
}, <effectId>.<parameter> of an Effect of the Clip, <visualizerId>.<parameter>, transition.<parameter> of the Clip's transition, or generator.<parameter> of its generator`;

/** Splits `clip:<clipId>/<parameter>`; null when the syntax is wrong. */
export function parseTarget(target: string): { clipId: string; parameter: string } | null {
  const m = TARGET_PATTERN.exec(target);
  return m ? { clipId: m[1]!, parameter: m[2]! } : null;
}

function applyCurve(v: number, curve: Curve): number {
  const sign = Math.sign(v), a = Math.abs(v);
  switch (curve) {
    case "linear":
      return v;
    case "exponential":
      return sign * a * a;
    case "logarithmic":
      return sign * Math.sqrt(a);
    case "smooth":
      return v * v * (3 - 2 * v);
  }
}

/**
 * Maps a Control value onto one Target's range: optional clamp to 0-1,
 * optional inversion, the curve, then `min + v * (max - min)`.
 * @example
 * ```ts
 * shapeValue(0.5, { target: "clip:a/speed", min: 0.5, max: 2, curve: "linear", invert: false }, true); // 1.25
 * ```
 */
export function shapeValue(value: number, target: ControlTarget, isClamped: boolean): number {
  let v = isClamped ? Math.min(1, Math.max(0, value)) : value;
  if (target.invert) v = 1 - v;
  v = applyCurve(v, target.curve);
  return target.min + v * (target.max - target.min);
}

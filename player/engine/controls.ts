/**
 * How Controls A-Z shape a value onto their Targets, and which clip
 * parameters a Target may address.
 * @module
 */
import type { ControlTarget, Curve } from "../../protocol/model.ts";
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

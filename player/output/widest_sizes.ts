/**
 * The largest size each ISF pass target can take while its item is shown: a
 * `WIDTH` or `HEIGHT` that names inputs changes with their live values
 * (Controls, SET_PARAM), which the output holds to each input's MIN and MAX
 * (`render_state.ts`), so the texture budget weighs it over that range, not at
 * the stored values.
 * @module
 */
import { ISF_MAX_TARGET_SIDE } from "../../protocol/output.ts";
import type { IsfHeader, IsfInput } from "../isf/header.ts";
import { passSizes } from "../isf/mod.ts";

/** Inputs a header's sizes may name and be weighed at each end of (2^8 sizes at most). */
const MAX_RANGED_INPUTS = 8;

/**
 * Each pass's size, as `passSizes`, at the largest over the ends of the
 * ranges of the inputs its sizes name (all their combinations): exact for a
 * size that grows or shrinks with each input, as ISF's do (`$WIDTH / $scale`).
 * A side that names an input with no range (no MIN or MAX), or more inputs
 * than `MAX_RANGED_INPUTS`, is counted at the most a side takes: twice the
 * render's, at most `ISF_MAX_TARGET_SIDE`.
 */
export function widestPassSizes(
  header: IsfHeader,
  values: Readonly<Record<string, number>>,
  size: { width: number; height: number },
): Array<[number, number]> {
  const named = (expression: string | number | undefined) =>
    typeof expression !== "string"
      ? []
      : header.INPUTS.filter((input) =>
        input.NAME in values && new RegExp(`\\$${input.NAME}\\b`).test(expression)
      );
  const inputs = new Set(header.PASSES.flatMap((p) => [...named(p.WIDTH), ...named(p.HEIGHT)]));
  const ranged = [...inputs].filter((input) => rangeOf(input) !== null);
  const isRanged = (input: IsfInput) =>
    ranged.length <= MAX_RANGED_INPUTS && ranged.includes(input);
  let scopes = [{ ...values }];
  if (ranged.length <= MAX_RANGED_INPUTS) {
    for (const input of ranged) {
      scopes = scopes.flatMap((scope) =>
        rangeOf(input)!.map((v) => ({ ...scope, [input.NAME]: v }))
      );
    }
  }
  const sizes = passSizes(header, { values, ...size });
  for (const scope of scopes) {
    for (const [i, [w, h]] of passSizes(header, { values: scope, ...size }).entries()) {
      sizes[i] = [Math.max(sizes[i]![0], w), Math.max(sizes[i]![1], h)];
    }
  }
  const most = (render: number) => Math.min(ISF_MAX_TARGET_SIDE, 2 * render);
  for (const [i, pass] of header.PASSES.entries()) {
    if (!pass.TARGET) continue;
    if (!named(pass.WIDTH).every(isRanged)) sizes[i]![0] = most(size.width);
    if (!named(pass.HEIGHT).every(isRanged)) sizes[i]![1] = most(size.height);
  }
  return sizes;
}

/** The two ends of the values an input's uniform takes, or null when it has no range. */
function rangeOf(input: IsfInput): [number, number] | null {
  if (input.TYPE === "bool" || input.TYPE === "event") return [0, 1];
  if (input.VALUES?.length) return [Math.min(...input.VALUES), Math.max(...input.VALUES)];
  const { MIN, MAX } = input;
  return typeof MIN === "number" && typeof MAX === "number" ? [MIN, MAX] : null;
}

/**
 * One budget for the textures and render targets of all Effects and
 * Visualizers of a Project together (setting `outputTextureBudgetMb`), so no
 * set of presets can take the output's browser past the machine's memory: the
 * edit that would pass it is refused (`refuseOverBudget`), whatever it is
 * (an Effect or Visualizer added, its preset changed, a preset's code changed,
 * the display size changed, an Effect put on another Clip).
 *
 * What is counted is what the page allocates at the display's size (the
 * render scale only lowers it): each ISF pass with a `TARGET` at its size
 * (`passSizes`; where it names inputs, the largest over their ranges, which
 * bound their live values: `widestPassSizes`), twice for a `PERSISTENT` one,
 * at 16 bytes a texel for a `FLOAT` one (RGBA32F, the page's format where the
 * GL filters it; RGBA16F elsewhere takes half) and 4 for the others (RGBA8).
 * An Effect counts once for each Clip that lists it (the page keeps targets per
 * chain), at least once; Visualizers once; quarantined presets are not drawn.
 * The compositor's own three display-size targets are the output's, not an
 * Effect's, and are not counted.
 * @module
 */
import type { Effect, Preset, PresetParameter, Project, Visualizer } from "../../protocol/model.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { Refusal } from "../errors.ts";
import { type IsfHeader, parseHeader, splitHeader } from "../isf/header.ts";
import { passSpecs } from "../isf/passes.ts";
import { inputUniform } from "../isf/parameters.ts";
import { drawsIsf } from "./isf_programs.ts";
import { widestPassSizes } from "./widest_sizes.ts";

/** Bytes a texel of an 8-bit target takes (RGBA8). */
export const BYTES_PER_TEXEL = 4;
/** Bytes a texel of a float target takes (RGBA32F). */
export const BYTES_PER_FLOAT_TEXEL = 16;

/** Headers read, by code: the last `HEADERS_KEPT`. */
const HEADERS = new Map<string, IsfHeader | null>();
const HEADERS_KEPT = 64;

/**
 * The ISF header of `code`, or null: all the budget reads (passes, their sizes, the inputs
 * their expressions name). Read here, at once and bounded by the header's JSON, not by the
 * code's full check, which runs apart and may not have ended when an edit is weighed.
 */
function headerOf(code: string): IsfHeader | null {
  const known = HEADERS.get(code);
  if (known !== undefined) return known;
  const split = splitHeader(code);
  const parsed = "json" in split ? parseHeader(code, split) : null;
  const header = parsed && !Array.isArray(parsed) ? parsed : null;
  if (HEADERS.size >= HEADERS_KEPT) HEADERS.delete(HEADERS.keys().next().value!);
  HEADERS.set(code, header);
  return header;
}

/** The bytes the targets of `item` drawn with `preset` take at a render of `size`. */
export function itemTextureBytes(
  item: Effect | Visualizer,
  preset: Preset | undefined,
  size: { width: number; height: number },
): number {
  if (!preset || preset.quarantine || !drawsIsf(preset)) return 0;
  const header = headerOf(preset.code);
  if (!header || header.PASSES.length === 0) return 0;
  const values: Record<string, PresetParameter["default"]> = {};
  for (const p of preset.parameters) values[p.name] = item.params[p.name] ?? p.default;
  const scalars: Record<string, number> = {};
  for (const u of header.INPUTS.flatMap((input) => inputUniform(input, values) ?? [])) {
    if (typeof u.value === "number") scalars[u.name] = u.value;
  }
  const sizes = widestPassSizes(header, scalars, size);
  let bytes = 0;
  for (const [i, pass] of passSpecs(header).entries()) {
    if (!pass.target) continue;
    const [w, h] = sizes[i]!;
    const texel = pass.float ? BYTES_PER_FLOAT_TEXEL : BYTES_PER_TEXEL;
    bytes += w * h * texel * (pass.persistent ? 2 : 1);
  }
  return bytes;
}

/** The bytes all Effects and Visualizers of `project` take on the output (see the module). */
export function projectTextureBytes(project: Project, presets: readonly Preset[]): number {
  const presetOf = (item: Effect | Visualizer) => presets.find((p) => p.id === item.presetId);
  const size = project.display;
  let bytes = 0;
  for (const effect of project.effects) {
    const chains = project.clips.filter((c) => c.options.effects.includes(effect.id)).length;
    bytes += itemTextureBytes(effect, presetOf(effect), size) * Math.max(1, chains);
  }
  for (const visualizer of project.visualizers) {
    bytes += itemTextureBytes(visualizer, presetOf(visualizer), size);
  }
  return bytes;
}

/**
 * Refuses a change that takes the Project's textures past `budgetBytes` (RPC ACTION_REFUSED,
 * `data: {reason: "TEXTURE_BUDGET", budgetBytes, wouldUseBytes}`); one that does not add to
 * them passes (a budget lowered under a Project's use leaves its edits free to lower it).
 * @throws {Refusal} ACTION_REFUSED
 */
export function refuseOverBudget(
  before: { project: Project; presets: readonly Preset[] },
  after: { project: Project; presets: readonly Preset[] },
  budgetBytes: number,
): void {
  const wouldUseBytes = projectTextureBytes(after.project, after.presets);
  if (wouldUseBytes <= budgetBytes) return;
  if (wouldUseBytes <= projectTextureBytes(before.project, before.presets)) return;
  const mb = (bytes: number) => `${Math.ceil(bytes / 2 ** 20)} MB`;
  throw new Refusal(
    `The Effects and Visualizers of Project "${after.project.id}" would take ${
      mb(wouldUseBytes)
    } of textures, over the output's budget of ${mb(budgetBytes)}: ` +
      "remove an Effect or Visualizer, choose a preset with fewer or smaller (or not FLOAT) " +
      "pass targets, lower the display size, or raise the outputTextureBudgetMb setting",
    RpcErrorCode.ACTION_REFUSED,
    { reason: "TEXTURE_BUDGET", budgetBytes, wouldUseBytes },
  );
}

/**
 * The generator of a Clip (`clip.add` with `generator`, `clip.set_generator`): a generator
 * preset of the store, with parameters it has, checked before it is set. @module
 */
import type { Generator, Preset } from "../../protocol/model.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { Refusal } from "../errors.ts";
import { type EditDraft, type EditHandler, findClip } from "./draft.ts";
import { paramProblems } from "./preset_rules.ts";
import { withArticle } from "./transition_edits.ts";

/**
 * `generator` (given at `field`) and its preset, when the preset is a generator preset of the
 * store (built in or the user's) and its params are values of that preset's parameters; else
 * a refusal naming the field.
 * @throws {Refusal} INVALID_PARAMS naming `field.presetId` or `field.params`
 */
export function checkedGenerator(
  generator: Generator,
  field: string,
  draft: Pick<EditDraft, "builtInPresets" | "presets">,
): { generator: Generator; preset: Preset } {
  const preset = [...draft.builtInPresets, ...draft.presets].find((p) =>
    p.id === generator.presetId
  );
  if (preset?.kind !== "generator") {
    const what = preset ? `is ${withArticle(preset.kind)} preset` : "does not exist";
    throw new Refusal(
      `Invalid ${field}.presetId: preset "${generator.presetId}" ${what}; GET /api/v1/presets lists the generator presets (kind "generator"), gen-solid among them`,
      RpcErrorCode.INVALID_PARAMS,
      { field: `${field}.presetId`, value: generator.presetId },
    );
  }
  const params = generator.params ?? {};
  const problems = paramProblems(preset, params);
  if (problems.length > 0) {
    throw new Refusal(
      `Invalid ${field}.params: ${problems.join("; ")}`,
      RpcErrorCode.INVALID_PARAMS,
      { field: `${field}.params` },
    );
  }
  return { generator: { presetId: preset.id, params }, preset };
}

/** Generator edit handlers by name. */
export const GENERATOR_HANDLERS: Record<string, EditHandler> = {
  "clip.set_generator": (d, p) => {
    const clip = findClip(d, p.clipID);
    if (p.generator === null) {
      delete clip.generator;
      return `Clip "${clip.id}" plays no generator`;
    }
    const { generator, preset } = checkedGenerator(p.generator, "generator", d);
    clip.generator = generator;
    clip.fileId = null;
    return `Clip "${clip.id}" plays the generator "${preset.id}" (${preset.name})`;
  },
};

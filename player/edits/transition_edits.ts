/** The check of a transition an edit sets (`options.transition`, a Song's, the Project's). @module */
import type { Preset, Transition } from "../../protocol/model.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { Refusal } from "../errors.ts";
import { BUILT_IN_PRESETS } from "../presets.ts";
import { paramProblems } from "./preset_rules.ts";

/** `kind` with its indefinite article: "an effect", "a visualizer". */
export function withArticle(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;
}

/**
 * `transition` (given at `field`) when its preset is a transition preset of the store and its
 * params are that preset's; else a refusal naming the field. Null passes (a cut).
 */
export function checkedTransition(
  transition: Transition | null,
  field: string,
  userPresets: readonly Preset[],
): Transition | null {
  if (!transition) return null;
  const preset = [...BUILT_IN_PRESETS, ...userPresets].find((p) => p.id === transition.presetId);
  if (preset?.kind !== "transition") {
    const what = preset ? `is ${withArticle(preset.kind)} preset` : "does not exist";
    throw new Refusal(
      `Invalid ${field}.presetId: preset "${transition.presetId}" ${what}; GET /api/v1/presets lists the transition presets (kind "transition"), tr-dissolve among them`,
      RpcErrorCode.INVALID_PARAMS,
      { field: `${field}.presetId`, value: transition.presetId },
    );
  }
  for (const name of Object.keys(transition.params)) {
    if (preset.parameters.some((p) => p.name === name && name !== "progress")) continue;
    throw new Refusal(
      `Invalid ${field}.params.${name}: preset "${preset.id}" has no parameter "${name}" (it has ${
        preset.parameters.filter((p) => p.name !== "progress").map((p) => p.name).join(", ") ||
        "none"
      }; progress is the player's)`,
      RpcErrorCode.INVALID_PARAMS,
      { field: `${field}.params.${name}` },
    );
  }
  const problems = paramProblems(preset, transition.params);
  if (problems.length > 0) {
    throw new Refusal(
      `Invalid ${field}.params: ${problems.join("; ")}`,
      RpcErrorCode.INVALID_PARAMS,
      { field: `${field}.params` },
    );
  }
  return {
    presetId: transition.presetId,
    duration: transition.duration,
    params: transition.params,
  };
}

/** The generator of a Clip: the shader it plays instead of a file (`docs/presets.md`). @module */
import { z } from "zod";
import { Generator } from "../model.ts";
import { ClipRef, edit, type EditSpec } from "./_common.ts";

/** A generator an edit sets (`protocol/model.ts` Generator). */
export const GeneratorInput = z.strictObject({
  presetId: Generator.shape.presetId.describe(
    'Id of a generator preset (kind "generator"; built-ins gen-solid, gen-plasma)',
  ),
  params: Generator.shape.params.describe("The preset's parameters by name; omitted: defaults"),
});

/** The generator edits (group `clips`). */
export const GENERATOR_EDITS: EditSpec[] = [
  edit(
    "clip.set_generator",
    "clips",
    "Make a Clip play a generator preset's shader instead of a file, or clear it (null)",
    {
      clipID: ClipRef,
      generator: GeneratorInput.nullable().describe(
        "The generator preset and its parameters (the Clip's file is cleared); null: none (a placeholder)",
      ),
    },
  ),
];

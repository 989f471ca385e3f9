/** User preset edits (the preset store shared by all Projects). @module */
import { z } from "zod";
import { Id, PresetParameter } from "../model.ts";
import { edit, type EditSpec, Name } from "./_common.ts";

const Kind = z.enum(["effect", "visualizer"]).describe("Preset kind");
const Parameters = z.array(PresetParameter).max(64)
  .describe("Exposed parameters: name, type (number, boolean, color, enum), range, default");
const Code = z.string().max(200_000).describe("Shader or script source of the preset");

/** The preset definition that `preset.add` and `preset.validate` take. */
export const PresetInput = z.strictObject({
  kind: Kind,
  name: Name,
  type: z.string().trim().min(1).max(64).describe("Effect type or Visualizer engine"),
  parameters: Parameters.default([]),
  code: Code.default(""),
});

/** The preset edits. */
export const PRESET_EDITS: EditSpec[] = [
  edit("preset.add", "presets", "Add a user preset (validated before it is written)", {
    ...PresetInput.shape,
  }),
  edit("preset.update", "presets", "Change a user preset (validated before it is written)", {
    kind: Kind,
    presetID: Id.describe("Id of a user preset"),
    name: Name.optional(),
    parameters: Parameters.optional(),
    code: Code.optional(),
  }),
  edit(
    "preset.remove",
    "presets",
    "Remove a user preset; this Project's Effects and Visualizers using it keep their values, unlinked. Refused while another Project uses it",
    {
      kind: Kind,
      presetID: Id.describe("Id of a user preset"),
    },
  ),
  edit("preset.validate", "presets", "Check a preset definition without writing anything", {
    ...PresetInput.shape,
  }, { isHistoryControl: true }),
];

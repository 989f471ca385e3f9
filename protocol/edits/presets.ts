/** User preset edits (the preset store shared by all Projects). @module */
import { z } from "zod";
import { Id, PresetKind, PresetParameter } from "../model.ts";
import { edit, type EditSpec, Name } from "./_common.ts";

/** The `type` of a preset whose `code` is an ISF 2.0 shader (docs/presets.md). */
export const ISF_PRESET_TYPE = "isf";

const Kind = PresetKind.describe("Preset kind");
const Parameters = z.array(PresetParameter).max(64).describe(
  'Exposed parameters: name, type (number, boolean, color, enum), range, default. For type "isf" they come from the header\'s INPUTS: leave them out (given, they must be exactly those)',
);
/** The longest preset code, in characters (the editor's socket bound follows it). */
export const MAX_PRESET_CODE = 200_000;

const Code = z.string().max(MAX_PRESET_CODE).describe(
  'The preset\'s source. For type "isf", an ISF 2.0 shader (a `/*{JSON header}*/` then GLSL), checked before it is written; other types keep it as text',
);

const VertexCode = z.string().max(MAX_PRESET_CODE).describe(
  "For type \"isf\", the shader's own vertex shader (ISF's .vs: GLSL calling isf_vertShaderInit()), checked with the code; empty: none (the full-frame quad)",
);

/** The preset definition that `preset.add` and `preset.validate` take. */
export const PresetInput = z.strictObject({
  kind: Kind,
  name: Name,
  type: z.string().trim().min(1).max(64)
    .describe('Effect type or Visualizer engine; "isf" for a preset whose code is an ISF shader'),
  parameters: Parameters.default([]),
  code: Code.default(""),
  vertexCode: VertexCode.optional(),
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
    vertexCode: VertexCode.optional(),
  }),
  edit(
    "preset.remove",
    "presets",
    "Remove a user preset; this Project's Effects and Visualizers using it keep their values, unlinked; its transitions through it become null (a cut). Refused while another Project uses it",
    {
      kind: Kind,
      presetID: Id.describe("Id of a user preset"),
    },
  ),
  edit(
    "preset.import",
    "presets",
    'Add a user preset from an ISF file (.fs) on the show machine, with its vertex shader when a .vs of the same name is beside it: type "isf", its parameters from the header\'s INPUTS. Remote clients upload the file (POST /api/v1/files/upload) or send its text as preset.add code',
    {
      path: z.string().min(1).max(4096).describe(
        "Absolute path of the .fs file on the show machine",
      ),
      kind: Kind.optional().describe(
        "Defaults to transition when the header declares startImage, endImage and progress, to visualizer when it declares an audio or audioFFT input, else effect",
      ),
      name: Name.optional().describe(
        'Defaults to the file\'s name without .fs; a name taken gets " (2)", " (3)"...',
      ),
    },
    { isLocalOnly: true },
  ),
  edit("preset.validate", "presets", "Check a preset definition without writing anything", {
    ...PresetInput.shape,
  }, { isHistoryControl: true }),
];

/**
 * The answer of `preset.validate` (the edit's `result`): `valid` when `problems` is empty, each
 * problem `<field>: ...` (`code: line 8, column 5: ...`); `warnings`, when there are any, what the
 * code had taken but changed, as other ISF hosts change it (`... DEFAULT 5 is above MAX 1: clamped
 * to 1, as other ISF hosts do`). `preset.add` ends its message with the same warnings.
 */
export const PresetValidateResult = z.object({
  valid: z.boolean(),
  problems: z.array(z.string()),
  warnings: z.array(z.string()).optional(),
});
/** See the schema. */
export type PresetValidateResult = z.infer<typeof PresetValidateResult>;

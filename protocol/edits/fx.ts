/** Effect and Visualizer edits: add, update, remove, copy. @module */
import { z } from "zod";
import { Id } from "../model.ts";
import { edit, type EditSpec, Name, ParamValue } from "./_common.ts";
import { setInputEdit } from "./inputs.ts";

function fxEdits(kind: "effect" | "visualizer"): EditSpec[] {
  const Label = kind === "effect" ? "Effect" : "Visualizer";
  const group = kind === "effect" ? "effects" : "visualizers";
  const ref = `${kind}ID`;
  const Ref = Id.describe(`Id of a ${Label} of the Project`);
  const Params = z.record(z.string(), ParamValue)
    .describe("Parameter values by name; a preset-linked one is checked against the preset");
  return [
    edit(`${kind}.add`, group, `Add a ${Label} from a preset`, {
      presetID: Id.describe(`Id of a ${kind} preset (built-in or user)`),
      name: Name.optional().describe("Defaults to the preset's name"),
      params: Params.optional().describe("Overrides of the preset's defaults"),
    }),
    edit(`${kind}.update`, group, `Change a ${Label}'s name, state or parameters`, {
      [ref]: Ref,
      name: Name.optional(),
      enabled: z.boolean().optional(),
      params: Params.optional().describe("Values to change; others keep theirs"),
    }),
    edit(
      `${kind}.remove`,
      group,
      `Remove a ${Label}${kind === "effect" ? " (and from Clips)" : ""}`,
      {
        [ref]: Ref,
      },
    ),
    edit(`${kind}.copy`, group, `Copy a ${Label}`, {
      [ref]: Ref,
      name: Name.optional().describe('Defaults to the name with " copy"'),
    }),
    setInputEdit(kind),
  ];
}

/** The Effect and Visualizer edits. */
export const FX_EDITS: EditSpec[] = [...fxEdits("effect"), ...fxEdits("visualizer")];

/** Control edits: settings and Targets of the Controls A-Z. @module */
import { z } from "zod";
import { Curve } from "../model.ts";
import { CONTROL_LETTER, CONTROL_SPAN, FRACTION_RANGE } from "../action_rules.ts";
import { edit, type EditSpec } from "./_common.ts";

const Letter = z.string().regex(CONTROL_LETTER, `Must be one letter ${CONTROL_SPAN}`)
  .describe(`Control letter ${CONTROL_SPAN} (case-insensitive)`);

/** The Control edits. */
export const CONTROL_EDITS: EditSpec[] = [
  edit("control.update", "controls", "Change a Control's name or clamping", {
    controlID: Letter,
    name: z.string().trim().max(100).optional(),
    clamp: z.boolean().optional().describe(
      `Clamp incoming values to ${FRACTION_RANGE} before shaping`,
    ),
  }),
  edit("control.set_targets", "controls", "Replace the Targets a Control writes", {
    controlID: Letter,
    targets: z.array(z.strictObject({
      target: z.string().describe("clip:<clipId>/<parameter>"),
      min: z.number().default(0).describe("Value written at 0.0"),
      max: z.number().default(1).describe("Value written at 1.0"),
      curve: Curve.default("linear"),
      invert: z.boolean().default(false),
    })).max(64),
  }),
];

/**
 * The image-input edits: an Effect's or Visualizer's image input other than `inputImage` bound
 * to a source (`ImageSource`, `docs/presets.md` "Several image inputs"), or unbound.
 * @module
 */
import { z } from "zod";
import { Id, ImageSource } from "../model.ts";
import { edit, type EditSpec } from "./_common.ts";

const SOURCE_HELP =
  'Where the input reads its picture: {"from": "clip", "clipID"} (a Clip of the Project, while it plays), {"from": "below"} (the layers drawn below this one), {"from": "camera", "cameraId"} (a camera\'s deviceId, while a Clip plays it), {"from": "file", "fileId"} (an image file of the Project), {"from": "imported"} (the preset\'s IMPORTED image of the input\'s name); null unbinds it (transparent black)';

/** `effect.set_input` or `visualizer.set_input`. */
export function setInputEdit(kind: "effect" | "visualizer"): EditSpec {
  const Label = kind === "effect" ? "Effect" : "Visualizer";
  const a = kind === "effect" ? "an" : "a";
  return edit(
    `${kind}.set_input`,
    kind === "effect" ? "effects" : "visualizers",
    `Bind one image input of ${a} ${Label}'s shader (other than inputImage) to a picture, or unbind it`,
    {
      [`${kind}ID`]: Id.describe(`Id of ${a} ${Label} of the Project`),
      input: z.string().min(1).max(64).describe(
        "The name of an image input its preset's shader declares (not inputImage)",
      ),
      source: ImageSource.nullable().describe(SOURCE_HELP),
    },
  );
}

/**
 * An Effect's or Visualizer's image inputs as the output page reads them (`RenderImage`): each
 * input bound (`Effect.inputs`) resolved against the Project and the preset, and each of the
 * preset's `IMPORTED` images. An input left out reads transparent black on the page.
 * @module
 */
import type { Effect, Preset, Project, Visualizer } from "../../protocol/model.ts";
import type { RenderImage } from "../../protocol/output.ts";
import { importedImages } from "../isf/header.ts";
import { bindableInputs } from "../isf/imported.ts";
import type { IsfProgram } from "../isf/mod.ts";
import { presetImageNamed, presetImageUrl } from "./imported_images.ts";

/**
 * The page's sources of `item`'s image inputs and of its preset's `IMPORTED` images, or
 * undefined when it has none. A file that is not an image, or an imported image the preset
 * lacks, is left out (transparent black).
 */
export function renderInputs(
  item: Effect | Visualizer,
  preset: Preset,
  isf: Pick<IsfProgram, "header">,
  project: Pick<Project, "id" | "files"> | undefined,
): Record<string, RenderImage> | undefined {
  const out: Record<string, RenderImage> = {};
  const imported = (name: string) => {
    const image = presetImageNamed(preset, name);
    if (image) out[name] = { from: "url", url: presetImageUrl(image) };
  };
  for (const name of bindableInputs(isf.header)) {
    // A transition has no Effect to bind it: an input of its IMPORTED image's name reads it.
    const source = item.inputs?.[name] ??
      (preset.kind === "transition" ? { from: "imported" as const } : undefined);
    if (!source) continue;
    if (source.from === "clip") out[name] = { from: "clip", clipId: source.clipID };
    else if (source.from === "below") out[name] = { from: "below" };
    else if (source.from === "camera") out[name] = { from: "camera", cameraId: source.cameraId };
    else if (source.from === "imported") imported(name);
    else {
      const file = project?.files.find((f) => f.id === source.fileId && f.kind === "image");
      if (file && project) out[name] = { from: "url", url: `media/${project.id}/${file.id}` };
    }
  }
  const inputs = new Set(isf.header.INPUTS.map((i) => i.NAME));
  // An image of an input's name is read only where that input is bound to it (above).
  for (const { name } of importedImages(isf.header)) if (!inputs.has(name)) imported(name);
  return Object.keys(out).length > 0 ? out : undefined;
}

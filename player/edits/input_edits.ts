/**
 * Handlers of `effect.set_input` and `visualizer.set_input`: an image input of the item's
 * shader bound to a source (`ImageSource`) or unbound, each reference checked by name.
 * @module
 */
import type { Effect, ImageSource, Preset, PresetImage, Visualizer } from "../../protocol/model.ts";
import type { ImportedImage } from "../isf/header.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { Refusal } from "../errors.ts";
import { bindableInputsOf } from "../isf/imported.ts";
import {
  type EditDraft,
  type EditHandler,
  type EditParams,
  findClip,
  findFile,
  missing,
} from "./draft.ts";

type Kind = "effect" | "visualizer";

/** The item's preset, if it is linked to one that still exists. */
function presetOf(d: EditDraft, item: Effect | Visualizer): Preset | undefined {
  return [...d.builtInPresets, ...d.presets].find((p) => p.id === item.presetId);
}

/** Refuses a source whose Clip, file, camera or imported image is not there. */
function checkSource(d: EditDraft, source: ImageSource, input: string, preset: Preset): void {
  if (source.from === "clip") findClip(d, source.clipID);
  else if (source.from === "file") {
    const file = findFile(d, source.fileId);
    if (file.kind !== "image") {
      throw new Refusal(
        `Invalid params.source.fileId: file "${file.id}" is ${
          file.kind === "audio" ? "an audio file" : "a video"
        }: bind an image file, or the Clip that plays it ({"from": "clip", "clipID": ...})`,
        RpcErrorCode.INVALID_PARAMS,
      );
    }
  } else if (source.from === "camera") {
    const cameras = d.cameras;
    if (cameras && !cameras.includes(source.cameraId)) {
      throw missing(
        `Camera "${source.cameraId}" does not exist: the cameras are ${
          cameras.map((c) => `"${c}"`).join(", ")
        } (GET /api/v1/cameras)`,
      );
    }
  } else if (source.from === "imported" && !preset.images?.some((i) => i.name === input)) {
    throw new Refusal(
      `Invalid params.source: preset "${preset.id}" has no IMPORTED image "${input}" (import the .fs with its images beside it: preset.import)`,
      RpcErrorCode.INVALID_PARAMS,
    );
  }
}

function setInput(d: EditDraft, kind: Kind, p: EditParams): string {
  const Label = kind === "effect" ? "Effect" : "Visualizer";
  const id: string = p[`${kind}ID`];
  const list: (Effect | Visualizer)[] = kind === "effect"
    ? d.project.effects
    : d.project.visualizers;
  const item = list.find((x) => x.id === id);
  if (!item) throw missing(`${Label} "${id}" does not exist`);
  const preset = presetOf(d, item);
  const names = preset ? bindableInputsOf(preset.code) : [];
  const input: string = p.input;
  if (!preset || !names.includes(input)) {
    const has = names.length > 0
      ? `its image inputs are ${names.map((n) => `"${n}"`).join(", ")}`
      : "it binds none (inputImage is the layer's picture)";
    throw new Refusal(
      `Invalid params.input: "${input}" is not an image input of ${Label} "${id}"'s shader: ${has}`,
      RpcErrorCode.INVALID_PARAMS,
    );
  }
  const source: ImageSource | null = p.source;
  if (source === null) {
    if (item.inputs) {
      const { [input]: _gone, ...rest } = item.inputs;
      if (Object.keys(rest).length > 0) item.inputs = rest;
      else delete item.inputs;
    }
    return `${Label} "${id}": input "${input}" unbound`;
  }
  checkSource(d, source, input, preset);
  item.inputs = { ...item.inputs, [input]: source };
  return `${Label} "${id}": input "${input}" reads ${source.from}`;
}

/**
 * Stores the `IMPORTED` images read beside an imported `.fs` with the preset the edit just
 * added (`created.presetID`), after its code was checked (a refused file stores nothing).
 */
export async function storeImages(
  d: EditDraft,
  images: { image: ImportedImage; bytes: Uint8Array }[],
): Promise<void> {
  const preset = d.presets.find((x) => x.id === d.created.presetID);
  if (!preset || images.length === 0 || !d.storeImage) return;
  const stored: PresetImage[] = [];
  for (const { image, bytes } of images) {
    stored.push(await d.storeImage(image, bytes, "params.path"));
  }
  preset.images = stored;
}

/** The image-input edit handlers by name. */
export const INPUT_HANDLERS: Record<string, EditHandler> = {
  "effect.set_input": (d, p) => setInput(d, "effect", p),
  "visualizer.set_input": (d, p) => setInput(d, "visualizer", p),
};

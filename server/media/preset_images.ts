/**
 * A preset's `IMPORTED` image read back (its export beside the code): the bytes it was imported
 * with, from the preset store's folder (`<data dir>/preset_images/<sha256>.<ext>`, written by the
 * player: `player/output/imported_images.ts`), named by the read model's preset.
 * @module
 */
import {
  type Core,
  CueportError,
  type MediaAnswer,
  MediaImage,
  MediaNotModified,
  type PresetImageInput,
} from "../core/mod.ts";
import { matches } from "./output_frames.ts";
import { presetImagePath } from "../../protocol/show_file.ts";

/**
 * The image `input.name` of the preset, as its bytes; 304 when `ifNoneMatch` names it.
 * @throws {CueportError} NOT_FOUND for a preset or an image it does not have, or a file gone
 */
export async function presetImage(
  core: Core,
  dataDir: string,
  input: PresetImageInput,
): Promise<MediaAnswer> {
  const preset = core.queries.preset(input.kind, input.presetId);
  const image = preset.images?.find((i) => i.name === input.name);
  if (!image) {
    const names = (preset.images ?? []).map((i) => `"${i.name}"`).join(", ") || "none";
    throw new CueportError(
      "NOT_FOUND",
      `Preset "${input.presetId}" has no IMPORTED image "${input.name}" (its images: ${names})`,
      { field: "name" },
    );
  }
  const etag = `"${image.sha256}"`;
  if (input.ifNoneMatch !== undefined && matches(input.ifNoneMatch, etag)) {
    return new MediaNotModified(etag);
  }
  try {
    const bytes = await Deno.readFile(`${dataDir}/${presetImagePath(image)}`);
    return new MediaImage(bytes, image.mimeType, etag, "preset-image");
  } catch {
    throw new CueportError(
      "NOT_FOUND",
      `The file of IMPORTED image "${input.name}" of preset "${input.presetId}" is gone from the data dir`,
      { field: "name" },
    );
  }
}

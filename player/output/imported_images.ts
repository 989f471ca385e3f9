/**
 * A preset's `IMPORTED` images (ISF 2.0): read from beside its `.fs` by `preset.import`,
 * stored content-addressed in the preset store's folder (`<data dir>/preset_images/<sha256>.<ext>`,
 * so a preset and its undo share one file and two presets of one image too), listed on the preset
 * (`Preset.images`) and served to the output page like media (`preset-images/<sha256>.<ext>`,
 * behind the output server's token).
 * @module
 */
import { imageSize } from "image-size";
import type { Preset, PresetImage } from "../../protocol/model.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { writeFileAtomic } from "../../lib/atomic_write.ts";
import { quoted, Refusal } from "../errors.ts";
import { type ImportedImage, importedImages, parseHeader, splitHeader } from "../isf/header.ts";

import { PRESET_IMAGES_DIR, presetImageFile } from "../../protocol/show_file.ts";

/** Where the images are kept, and each one's name there (declared with the show file's entries). */
export { PRESET_IMAGES_DIR, presetImageFile };

/**
 * The bounds of one image: 16 MB, 4096 pixels a side (a texture every GPU takes; 64 MB of RGBA).
 * The collection's largest is 1.2 KB, 256 x 256.
 */
export const IMPORTED_IMAGE_LIMITS = { bytes: 16 * 1024 * 1024, side: 4096 } as const;

/** The types taken: what ISF hosts read (the collection's are PNG), and what the export serves. */
const TYPES: Record<string, PresetImage["mimeType"]> = { png: "image/png", jpg: "image/jpeg" };

/** The URL path of `image` on the output server (relative to the page). */
export function presetImageUrl(image: PresetImage): string {
  return `preset-images/${presetImageFile(image)}`;
}

/** The image of `name` of a preset, or undefined. */
export function presetImageNamed(preset: Preset, name: string): PresetImage | undefined {
  return preset.images?.find((i) => i.name === name);
}

/**
 * The entry of an image's `bytes` (what it is, its size), checked against the bounds.
 * @throws {Refusal} INVALID_PARAMS naming `field` for bytes no PNG or JPEG, or out of bounds
 */
export function measureImage(
  bytes: Uint8Array,
  image: ImportedImage,
  field: string,
): Omit<PresetImage, "sha256"> {
  const bad = (why: string) =>
    new Refusal(
      `Invalid ${field}: IMPORTED "${image.name}" (${quoted(image.path)}) ${why}`,
      RpcErrorCode.INVALID_PARAMS,
    );
  if (bytes.length > IMPORTED_IMAGE_LIMITS.bytes) {
    throw bad(`is ${bytes.length} bytes, over ${IMPORTED_IMAGE_LIMITS.bytes}`);
  }
  let measured: ReturnType<typeof imageSize>;
  try {
    measured = imageSize(bytes);
  } catch {
    throw bad("is not an image the output reads (PNG or JPEG)");
  }
  const mimeType = TYPES[measured.type ?? ""];
  if (!mimeType) throw bad(`is ${measured.type}: an IMPORTED image is PNG or JPEG`);
  const { width, height } = measured;
  const side = IMPORTED_IMAGE_LIMITS.side;
  if (!(width > 0 && height > 0) || width > side || height > side) {
    throw bad(`is ${width} x ${height} pixels: at most ${side} a side`);
  }
  return { name: image.name, file: image.path, mimeType, size: bytes.length, width, height };
}

/** The SHA-256 of `bytes`, as hex. */
async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Stores an image's `bytes` in the data dir (written once: a file of that hash is that image)
 * and answers its entry.
 * @throws {Refusal} as `measureImage`
 */
export async function storePresetImage(
  dataDir: string,
  image: ImportedImage,
  bytes: Uint8Array,
  field: string,
): Promise<PresetImage> {
  const entry = { ...measureImage(bytes, image, field), sha256: await sha256(bytes) };
  const path = `${dataDir}/${PRESET_IMAGES_DIR}/${presetImageFile(entry)}`;
  const isThere = await Deno.stat(path).then((s) => s.size === bytes.length, () => false);
  if (!isThere) await writeFileAtomic(path, bytes);
  return entry;
}

/**
 * The `IMPORTED` images the header of `code` declares, read from the folder of `fsPath` (a
 * missing file is refused: the preset would draw black where its author drew a picture).
 * @throws {Refusal} NOT_FOUND for a missing file, INVALID_PARAMS as `measureImage`
 */
export async function readImportedImages(
  code: string,
  fsPath: string,
): Promise<{ image: ImportedImage; bytes: Uint8Array }[]> {
  const split = splitHeader(code);
  const header = "json" in split ? parseHeader(code, split) : [];
  if (Array.isArray(header)) return [];
  const folder = fsPath.replace(/[^\\/]*$/, "");
  const read: { image: ImportedImage; bytes: Uint8Array }[] = [];
  for (const image of importedImages(header)) {
    const path = `${folder}${image.path}`;
    const info = await Deno.stat(path).catch(() => null);
    if (!info?.isFile) {
      throw new Refusal(
        `Invalid params.path: IMPORTED "${image.name}" reads ${
          quoted(image.path)
        }, which is not beside the .fs (${quoted(path)})`,
        RpcErrorCode.NOT_FOUND,
      );
    }
    if (info.size > IMPORTED_IMAGE_LIMITS.bytes) {
      throw new Refusal(
        `Invalid params.path: IMPORTED "${image.name}" (${
          quoted(image.path)
        }) is ${info.size} bytes, over ${IMPORTED_IMAGE_LIMITS.bytes}`,
        RpcErrorCode.INVALID_PARAMS,
      );
    }
    const bytes = await Deno.readFile(path);
    measureImage(bytes, image, "params.path");
    read.push({ image, bytes });
  }
  return read;
}

/** The path of the stored file of an image named by its URL file name, or null. */
export function presetImagePath(dataDir: string, file: string): string | null {
  if (!/^[0-9a-f]{64}\.(png|jpg)$/.test(file)) return null;
  return `${dataDir}/${PRESET_IMAGES_DIR}/${file}`;
}

/** The MIME type of a stored image's file name. */
export function presetImageType(file: string): string {
  return TYPES[file.split(".").pop() ?? ""] ?? "application/octet-stream";
}

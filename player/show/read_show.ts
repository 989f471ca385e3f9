/**
 * The checks of a show file before anything of it is written: the zip is
 * whole, every entry's path is safe (no `..`, absolute path or link: zip-slip),
 * the manifest lists exactly the entries there are, `project.json` and
 * `presets.json` match their sizes and sha256 and the model, and every media
 * file the Project names is there. The media's own bytes are measured as they
 * are extracted (`import.ts`), before the one rename that commits.
 * @module
 */
import type { Entry, FileEntry } from "@zip.js/zip.js";
import { z } from "zod";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import {
  type Preset,
  Preset as PresetSchema,
  type PresetImage,
  Project,
} from "../../protocol/model.ts";
import {
  Manifest,
  MANIFEST_ENTRY,
  type ManifestEntry,
  MAX_SHOW_JSON_BYTES,
  presetImagePath,
  PRESETS_ENTRY,
  PROJECT_ENTRY,
  unsafePathReason,
} from "../../protocol/show_file.ts";
import { Refusal } from "../errors.ts";
import { EntryTooLarge, isLink, type OpenZip, openZip, readEntry } from "./zip_file.ts";
import { IMPORTED_IMAGE_LIMITS } from "../output/imported_images.ts";

const MAX_JSON_BYTES = MAX_SHOW_JSON_BYTES;

/** A refusal of a show file: INVALID_SHOW_FILE, the reason after `Invalid show file: `. */
export function showRefusal(reason: string): Refusal {
  return new Refusal(`Invalid show file: ${reason}`, RpcErrorCode.INVALID_SHOW_FILE);
}

/** One media file to extract: its entry and what the manifest says of it. */
export interface MediaToExtract {
  entry: FileEntry;
  expected: ManifestEntry;
}

/** A show file that passed the checks, still open. */
export interface CheckedShow {
  zip: OpenZip;
  manifest: Manifest;
  project: Project;
  presets: Preset[];
  media: MediaToExtract[];
  /** The presets' `IMPORTED` images the file carries (one written before this change has none). */
  images: ImageToExtract[];
}

/** One `IMPORTED` image to extract, with what its preset says of it. */
export interface ImageToExtract extends MediaToExtract {
  image: PresetImage;
}

/**
 * Opens and checks the show file at `path` (see the module doc).
 * @throws {Refusal} INVALID_SHOW_FILE naming the entry and what is wrong
 */
export async function readShow(path: string): Promise<CheckedShow> {
  let zip: OpenZip;
  try {
    zip = await openZip(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Refusal(`No show file at "${path}"`, RpcErrorCode.NOT_FOUND);
    }
    const message = (error as Error).message;
    // zip.js refuses a path that climbs out itself, before `checkEntries` would.
    if (/unsafe/i.test(message)) throw showRefusal(`an entry's path is unsafe (${message})`);
    throw showRefusal(`not a whole zip file (${message})`);
  }
  try {
    const files = checkEntries(zip.entries);
    const manifest = await readManifest(files);
    const expected = new Map(manifest.entries.map((e) => [e.path, e]));
    checkListed(files, expected);
    const projectBytes = await readJsonEntry(files, expected, PROJECT_ENTRY);
    const project = parseJson(PROJECT_ENTRY, projectBytes, Project);
    if (project.id !== manifest.project.id) {
      throw showRefusal(
        `project.json has id "${project.id}", the manifest says "${manifest.project.id}"`,
      );
    }
    const presets = parsePresets(await readJsonEntry(files, expected, PRESETS_ENTRY));
    const media = mediaOf(project, files, expected);
    return { zip, manifest, project, presets, media, images: imagesOf(presets, files, expected) };
  } catch (error) {
    await zip.close();
    throw error;
  }
}

/** The file entries by path, once each is known safe (directories are only checked). */
function checkEntries(entries: Entry[]): Map<string, FileEntry> {
  const files = new Map<string, FileEntry>();
  for (const entry of entries) {
    const path = entry.directory ? entry.filename.replace(/\/$/, "") : entry.filename;
    const unsafe = unsafePathReason(path);
    if (unsafe) throw showRefusal(`entry "${entry.filename}" is unsafe: ${unsafe}`);
    if (isLink(entry)) throw showRefusal(`entry "${path}" is a symbolic link`);
    if (entry.encrypted) throw showRefusal(`entry "${path}" is encrypted`);
    if (entry.directory) continue;
    if (files.has(path)) throw showRefusal(`entry "${path}" is in the zip twice`);
    files.set(path, entry);
  }
  return files;
}

async function readManifest(files: Map<string, FileEntry>): Promise<Manifest> {
  const entry = files.get(MANIFEST_ENTRY);
  if (!entry) throw showRefusal(`${MANIFEST_ENTRY} is missing: is this a Cueport show file?`);
  if (entry.uncompressedSize > MAX_JSON_BYTES) {
    throw showRefusal(`${MANIFEST_ENTRY} is over ${MAX_JSON_BYTES} bytes`);
  }
  const { bytes } = await readJson(MANIFEST_ENTRY, entry, entry.uncompressedSize);
  return parseJson(MANIFEST_ENTRY, bytes, Manifest);
}

/** Every file of the zip is in the manifest with the size the zip gives, and the reverse. */
function checkListed(files: Map<string, FileEntry>, expected: Map<string, ManifestEntry>): void {
  for (const [path, entry] of files) {
    if (path === MANIFEST_ENTRY) continue;
    const listed = expected.get(path);
    if (!listed) throw showRefusal(`entry "${path}" is not in the manifest`);
    if (listed.size !== entry.uncompressedSize) {
      throw showRefusal(
        `entry "${path}" has ${entry.uncompressedSize} bytes, the manifest says ${listed.size}`,
      );
    }
  }
  for (const path of expected.keys()) {
    if (!files.has(path)) {
      throw showRefusal(`entry "${path}" is in the manifest but not in the zip`);
    }
  }
}

/** A JSON entry's bytes, once their size and sha256 match the manifest. */
async function readJsonEntry(
  files: Map<string, FileEntry>,
  expected: Map<string, ManifestEntry>,
  path: string,
): Promise<Uint8Array> {
  const entry = files.get(path);
  const listed = expected.get(path);
  if (!entry || !listed) throw showRefusal(`${path} is missing`);
  if (listed.size > MAX_JSON_BYTES) throw showRefusal(`${path} is over ${MAX_JSON_BYTES} bytes`);
  const read = await readJson(path, entry, Math.min(listed.size, entry.uncompressedSize));
  checkMeasure(path, read, listed);
  return read.bytes;
}

/**
 * A JSON entry inflated up to `declared` bytes (and `MAX_SHOW_JSON_BYTES`),
 * refused as soon as it inflates past them: a small zip cannot fill the memory.
 */
async function readJson(path: string, entry: FileEntry, declared: number) {
  const cap = Math.min(declared, MAX_JSON_BYTES);
  return await readBroken(path, async () => {
    try {
      return await readEntry(entry, cap);
    } catch (error) {
      if (!(error instanceof EntryTooLarge)) throw error;
      throw showRefusal(
        `entry "${path}" ${error.message} (the size the manifest and the zip declare; ` +
          `a JSON entry is at most ${MAX_JSON_BYTES} bytes)`,
      );
    }
  });
}

/** Size and sha256 as the manifest says, else a refusal naming the entry. */
export function checkMeasure(
  path: string,
  measured: { size: number; sha256: string },
  listed: ManifestEntry,
): void {
  if (measured.size !== listed.size) {
    throw showRefusal(
      `entry "${path}" has ${measured.size} bytes, the manifest says ${listed.size}`,
    );
  }
  if (measured.sha256 !== listed.sha256) {
    throw showRefusal(
      `entry "${path}" has sha256 ${measured.sha256}, the manifest says ${listed.sha256}`,
    );
  }
}

/** Runs a read of an entry; zip.js's errors (a CRC-32 mismatch, a cut entry) name the entry. */
export async function readBroken<T>(path: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof Refusal) throw error;
    throw showRefusal(`entry "${path}" cannot be read (${(error as Error).message})`);
  }
}

function parseJson<T>(path: string, bytes: Uint8Array, schema: z.ZodType<T>): T {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw showRefusal(`${path} is not JSON (${(error as Error).message})`);
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw showRefusal(`${path}: ${issue.path.join(".") || "(top)"}: ${issue.message}`);
}

function parsePresets(bytes: Uint8Array): Preset[] {
  const presets = parseJson(PRESETS_ENTRY, bytes, z.array(PresetSchema).max(10_000));
  const builtIn = presets.find((p) => p.builtIn);
  if (builtIn) throw showRefusal(`presets.json: preset "${builtIn.id}" claims to be built in`);
  return presets;
}

/** The media entries the Project names, each under `media/`, safe and present. */
function mediaOf(
  project: Project,
  files: Map<string, FileEntry>,
  expected: Map<string, ManifestEntry>,
): MediaToExtract[] {
  const media = new Map<string, MediaToExtract>();
  for (const file of project.files) {
    const unsafe = unsafePathReason(file.path);
    if (unsafe || !file.path.startsWith("media/")) {
      throw showRefusal(
        `project.json: file "${file.id}" has path "${file.path}", not under media/`,
      );
    }
    const entry = files.get(file.path);
    const listed = expected.get(file.path);
    if (!entry || !listed) throw showRefusal(`media file "${file.path}" is missing`);
    media.set(file.path, { entry, expected: listed });
  }
  return [...media.values()];
}

/**
 * The `IMPORTED` images of `presets` the file carries, each checked against its preset before a
 * byte is read: the sha256 the manifest gives is the one the preset names (the store is
 * addressed by it), and its size within `IMPORTED_IMAGE_LIMITS`. An image the file does not
 * carry (a show file written before images were) is left out: its preset reads it as
 * transparent black until it is imported again with it.
 */
function imagesOf(
  presets: readonly Preset[],
  files: Map<string, FileEntry>,
  expected: Map<string, ManifestEntry>,
): ImageToExtract[] {
  const images = new Map<string, ImageToExtract>();
  for (const preset of presets) {
    for (const image of preset.images ?? []) {
      const path = presetImagePath(image);
      const entry = files.get(path);
      const listed = expected.get(path);
      if (!entry || !listed || images.has(path)) continue;
      if (listed.sha256 !== image.sha256) {
        throw showRefusal(
          `entry "${path}" has sha256 ${listed.sha256} in the manifest, its preset ` +
            `"${preset.id}" says ${image.sha256}`,
        );
      }
      if (listed.size > IMPORTED_IMAGE_LIMITS.bytes) {
        throw showRefusal(
          `entry "${path}" has ${listed.size} bytes, over ${IMPORTED_IMAGE_LIMITS.bytes}`,
        );
      }
      images.set(path, { entry, expected: listed, image });
    }
  }
  return [...images.values()];
}

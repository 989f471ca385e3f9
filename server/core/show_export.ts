/**
 * Writing a show file (`protocol/show_file.ts`) as it is sent: the Project and
 * its presets from the read model, each media file read from where the player
 * says it is (`media.locate`) and hashed as it streams into the zip (stored,
 * not compressed: media are compressed already), the manifest last. Nothing
 * of the show is held whole in memory or copied on disk; a reader that goes
 * away (or `signal`) stops the reading. zip.js writes Zip64 where a size needs it.
 * @module
 */
import { configure, Uint8ArrayReader, ZipWriter } from "@zip.js/zip.js";
import { createHash } from "node:crypto";
import type { Preset, PresetImage, Project } from "../../protocol/model.ts";
import {
  type Manifest,
  MANIFEST_ENTRY,
  type ManifestEntry,
  presetImagePath,
  PRESETS_ENTRY,
  PROJECT_ENTRY,
  SHOW_FORMAT,
  SHOW_VERSION,
} from "../../protocol/show_file.ts";
import type { MediaLocateResult } from "../../protocol/methods.ts";
import { CueportError } from "./errors.ts";

// Workers would need a bundled worker script; entries are written one at a time anyway.
configure({ useWebWorkers: false });

/** What an export reads: the Project, the presets, where the media and the presets' images are. */
export interface ShowSource {
  project: Project;
  /** Every preset (built-in ones are left out of the file). */
  presets: readonly Preset[];
  locate(fileId: string): Promise<MediaLocateResult>;
  /** Where an `IMPORTED` image of a preset is on this machine; null: images are not carried. */
  imagePath(image: PresetImage): string | null;
  /** The Cueport version written into the manifest. */
  version: string;
}

/** The user presets the Project's Effects and Visualizers use. */
export function presetsOf(project: Project, presets: readonly Preset[]): Preset[] {
  const used = new Set(
    [...project.effects, ...project.visualizers].map((item) => item.presetId).filter(Boolean),
  );
  return presets.filter((p) => !p.builtIn && used.has(p.id));
}

/** A stream that hashes and counts what passes through it. */
function measuring(entry: { size: number; sha256: string }) {
  const hash = createHash("sha256");
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      hash.update(chunk);
      entry.size += chunk.length;
      controller.enqueue(chunk);
    },
    flush() {
      entry.sha256 = hash.digest("hex");
    },
  });
}

/**
 * Writes the show file of `source` to `out`, which it closes at the end (or
 * aborts on a failure); resolves with the bytes written.
 * @throws {CueportError} NOT_FOUND when a media file is gone, CONFLICT-like SERVER_ERROR when one changed size
 */
export async function writeShow(
  source: ShowSource,
  out: WritableStream<Uint8Array>,
  signal?: AbortSignal,
): Promise<number> {
  let bytes = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      bytes += chunk.length;
      controller.enqueue(chunk);
    },
  });
  const piped = counter.readable.pipeTo(out, signal ? { signal } : {});
  const zip = new ZipWriter(counter.writable, { keepOrder: true, ...(signal ? { signal } : {}) });
  try {
    const entries = await writeEntries(zip, source);
    const manifest: Manifest = {
      format: SHOW_FORMAT,
      version: SHOW_VERSION,
      createdAt: new Date().toISOString(),
      cueportVersion: source.version,
      project: {
        id: source.project.id,
        name: source.project.name,
        revision: source.project.revision,
      },
      entries,
    };
    await zip.add(MANIFEST_ENTRY, new Uint8ArrayReader(jsonBytes(manifest)));
    await zip.close();
  } catch (error) {
    await counter.writable.abort(error).catch(() => {});
    await piped.catch(() => {});
    throw error;
  }
  await piped;
  return bytes;
}

/** Writes every entry but the manifest; answers what the manifest lists. */
async function writeEntries(zip: ZipWriter<unknown>, source: ShowSource): Promise<ManifestEntry[]> {
  const entries: ManifestEntry[] = [];
  const addJson = async (path: string, value: unknown) => {
    const data = jsonBytes(value);
    await zip.add(path, new Uint8ArrayReader(data));
    entries.push({
      path,
      size: data.length,
      sha256: createHash("sha256").update(data).digest("hex"),
    });
  };
  await addJson(PROJECT_ENTRY, source.project);
  const presets = presetsOf(source.project, source.presets);
  await addJson(PRESETS_ENTRY, presets);
  const written = new Set<string>();
  for (const file of source.project.files) {
    if (written.has(file.path)) continue;
    written.add(file.path);
    const located = await source.locate(file.id);
    const entry = { path: file.path, size: 0, sha256: "" };
    const handle = await Deno.open(located.path, { read: true });
    try {
      // Stored: media are compressed already, and deflating gigabytes costs a core for nothing.
      await zip.add(file.path, handle.readable.pipeThrough(measuring(entry)), { level: 0 });
    } finally {
      try {
        handle.close();
      } catch { /* its stream closed it at the end */ }
    }
    if (entry.size !== located.size) {
      throw new CueportError(
        "SERVER_ERROR",
        `Media file "${file.path}" changed while it was exported (${entry.size} of ${located.size} bytes): export again`,
      );
    }
    entries.push(entry);
  }
  for (const [path, onDisk] of imagesOf(presets, source)) {
    const data = await Deno.readFile(onDisk);
    await zip.add(path, new Uint8ArrayReader(data), { level: 0 });
    entries.push({
      path,
      size: data.length,
      sha256: createHash("sha256").update(data).digest("hex"),
    });
  }
  return entries;
}

/**
 * The `IMPORTED` images of `presets` a show file carries: each entry's path (`preset_images/
 * <sha256>.<ext>`, once however many presets share it) and where it is on this machine.
 */
export function imagesOf(
  presets: readonly Preset[],
  source: Pick<ShowSource, "imagePath">,
): Map<string, string> {
  const images = new Map<string, string>();
  for (const image of presets.flatMap((preset) => preset.images ?? [])) {
    const onDisk = source.imagePath(image);
    if (onDisk !== null) images.set(presetImagePath(image), onDisk);
  }
  return images;
}

function jsonBytes(value: unknown): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(JSON.stringify(value, null, 2) + "\n");
}

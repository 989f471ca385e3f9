/**
 * The show file, declared once: a zip (`<name>.cueport.zip`) that carries one
 * Project to another machine. The service writes it (`GET
 * /api/v1/projects/:projectId/export`) and the player reads it (`show.import`);
 * anyone can open it with an ordinary unzip tool (docs/projects.md, "The show file").
 *
 * Entries: `project.json` (the Project; its file paths are relative, `media/...`),
 * `presets.json` (the user presets its Effects and Visualizers use), the media files
 * under `media/`, those presets' `IMPORTED` images under `preset_images/`, and
 * `manifest.json` last, listing every other entry with its size and sha256.
 * @module
 */
import { z } from "zod";
import { Id, type PresetImage } from "./model.ts";

/** The `format` of a manifest. */
export const SHOW_FORMAT = "cueport-show";
/** The version of the format this build writes and reads. */
export const SHOW_VERSION = 1;
/** The name of the manifest entry. */
export const MANIFEST_ENTRY = "manifest.json";
/** The name of the Project entry. */
export const PROJECT_ENTRY = "project.json";
/** The name of the presets entry. */
export const PRESETS_ENTRY = "presets.json";
/**
 * The folder of the presets' `IMPORTED` images, content-addressed (`presetImageFile`): under the
 * data dir, where the player keeps them, and in a show file, which carries those of its presets.
 */
export const PRESET_IMAGES_DIR = "preset_images";

/** The file name of a preset's `IMPORTED` image: `<sha256>.png` or `<sha256>.jpg`. */
export function presetImageFile(image: Pick<PresetImage, "sha256" | "mimeType">): string {
  return `${image.sha256}.${image.mimeType === "image/png" ? "png" : "jpg"}`;
}

/**
 * Where a preset's `IMPORTED` image is, relative to the data dir and inside a show file alike:
 * `preset_images/<sha256>.<ext>`.
 */
export function presetImagePath(image: Pick<PresetImage, "sha256" | "mimeType">): string {
  return `${PRESET_IMAGES_DIR}/${presetImageFile(image)}`;
}
/** The extension of a show file. */
export const SHOW_EXTENSION = ".cueport.zip";
/** The media type of a show file. */
export const SHOW_MEDIA_TYPE = "application/zip";

/** One entry of the zip besides the manifest. */
export const ManifestEntry = z.strictObject({
  /** Path inside the zip: `project.json`, `presets.json`, `media/...` or `preset_images/...`. */
  path: z.string().min(1).max(1024),
  size: z.number().int().nonnegative(),
  /** Lower-case hex. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "Must be 64 lower-case hex digits"),
});

/** `manifest.json`. */
export const Manifest = z.object({
  format: z.literal(SHOW_FORMAT),
  version: z.literal(SHOW_VERSION),
  /** ISO 8601. */
  createdAt: z.string(),
  /** The Cueport version that wrote it. */
  cueportVersion: z.string(),
  project: z.object({ id: Id, name: z.string(), revision: z.number().int().nonnegative() }),
  entries: z.array(ManifestEntry).max(100_000),
});

/** Derived types. */
export type ManifestEntry = z.infer<typeof ManifestEntry>;
export type Manifest = z.infer<typeof Manifest>;

/**
 * Why a path inside a show file is unsafe to extract, or null when it is safe:
 * relative, forward slashes, no `.`/`..` parts, no empty parts, no drive or NUL
 * (zip-slip). Links are refused by their entry's attributes, not by their path.
 */
export function unsafePathReason(path: string): string | null {
  if (path.length === 0 || path.length > 1024) return "its length is not 1 to 1024";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "it is absolute";
  if (path.includes("\\") || path.includes("\0")) return "it holds a backslash or NUL";
  const parts = path.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) {
    return "it holds an empty, . or .. part";
  }
  return null;
}

/** The file name a show of Project `name` is offered under: `<name>.cueport.zip`, safe characters only. */
export function showFileName(name: string): string {
  const base = name.normalize("NFKD").replace(/[^A-Za-z0-9 ._-]+/g, "").trim().slice(0, 100);
  return `${base.replace(/^\.+/, "") || "show"}${SHOW_EXTENSION}`;
}

/**
 * Largest JSON entry (manifest, project, presets) an import reads, bytes: each
 * is held in memory, and inflated only up to the smaller of this and the size
 * the manifest and the zip declare.
 */
export const MAX_SHOW_JSON_BYTES = 64 * 1024 * 1024;

/** The suffix of the temp file a show file is written to beside its target, then renamed. */
export const PARTIAL_SUFFIX = ".partial";

/**
 * Writes a show file to `path` whole or not at all (the CLI's and MCP's
 * export): `write` fills `<path>.partial`, which is synced, then renamed over
 * `path`. The temp's name is fixed, so one a killed export left is removed by
 * the next export to the same path; two exports to one path at once: the one
 * whose temp was replaced fails, the other's file stands.
 * @returns what `write` returned
 */
export async function writeShowFileWhole<T>(
  path: string,
  write: (out: WritableStream<Uint8Array>) => Promise<T>,
): Promise<T> {
  const temp = `${path}${PARTIAL_SUFFIX}`;
  await Deno.remove(temp).catch(() => {});
  try {
    const file = await Deno.open(temp, { write: true, createNew: true, mode: 0o644 });
    const result = await write(file.writable);
    // The stream closed the file; sync through a second handle before the rename.
    await using synced = await Deno.open(temp, { read: true });
    await synced.sync();
    await Deno.rename(temp, path);
    return result;
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

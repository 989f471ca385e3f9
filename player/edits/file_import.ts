/**
 * Bringing a media file into a Project's `media/` folder: measured from its
 * bytes first (unsupported or corrupt files are refused before anything is
 * written), then copied (or moved, for an upload already on this disk)
 * under a safe name that never overwrites another file.
 * @module
 */
import type { MediaFile } from "../../protocol/model.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { sanitizeFileName } from "../../protocol/file_names.ts";
import { Refusal } from "../errors.ts";
import { fileSource, MediaError, type MediaInfo, probeMedia } from "../media/probe.ts";
import { missing } from "./draft.ts";

/** Options of one import. */
export interface ImportOptions {
  /** The project folder. */
  projectDir: string;
  /** The id the new file gets. */
  id: string;
  /** Move instead of copy (the source is a staging file of an upload). */
  isMove: boolean;
  /** Called as bytes are copied: `(copied, total)`. */
  onProgress?: (bytes: number, total: number) => void;
}

async function probe(path: string): Promise<MediaInfo & { size: number }> {
  let source;
  try {
    source = await fileSource(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw missing(`No file at "${path}"`);
    throw new Refusal(`Cannot read "${path}": ${(error as Error).message}`);
  }
  try {
    const info = await probeMedia(source);
    return { ...info, size: source.size };
  } catch (error) {
    if (error instanceof MediaError) {
      const code = error.code === "UNSUPPORTED_MEDIA"
        ? RpcErrorCode.UNSUPPORTED_MEDIA
        : RpcErrorCode.CORRUPT_MEDIA;
      throw new Refusal(error.message, code);
    }
    throw new Refusal(`Corrupt media: ${(error as Error).message}`, RpcErrorCode.CORRUPT_MEDIA);
  } finally {
    source.close();
  }
}

/** Creates `media/<name>` exclusively, adding " (2)", " (3)"... until the name is free. */
async function createUnique(
  mediaDir: string,
  name: string,
): Promise<{ file: Deno.FsFile; name: string }> {
  const dot = name.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  for (let n = 1;; n++) {
    const candidate = n === 1 ? name : `${stem} (${n})${ext}`;
    try {
      const file = await Deno.open(`${mediaDir}/${candidate}`, { write: true, createNew: true });
      return { file, name: candidate };
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
  }
}

/** Imports the file at `path` as `name`; returns its entry for the Project. */
export async function importMedia(
  path: string,
  name: string,
  options: ImportOptions,
): Promise<MediaFile> {
  const safe = sanitizeFileName(name);
  if ("error" in safe) {
    throw new Refusal(`Invalid name: ${safe.error}`, RpcErrorCode.INVALID_PARAMS);
  }
  const info = await probe(path);
  const mediaDir = `${options.projectDir}/media`;
  await Deno.mkdir(mediaDir, { recursive: true });
  const { file, name: stored } = await createUnique(mediaDir, safe.name);
  const target = `${mediaDir}/${stored}`;
  try {
    if (options.isMove) {
      file.close();
      await Deno.rename(path, target);
    } else {
      await using source = await Deno.open(path, { read: true });
      let copied = 0;
      let reported = 0;
      const buffer = new Uint8Array(1024 * 1024);
      for (;;) {
        const n = await source.read(buffer);
        if (n === null) break;
        let written = 0;
        while (written < n) written += await file.write(buffer.subarray(written, n));
        copied += n;
        if (copied - reported >= info.size / 20 || copied === info.size) {
          reported = copied;
          options.onProgress?.(copied, info.size);
        }
      }
      await file.sync();
      file.close();
    }
  } catch (error) {
    try {
      file.close();
    } catch { /* already closed */ }
    await Deno.remove(target).catch(() => {});
    throw error;
  }
  return {
    id: options.id,
    kind: info.kind,
    name: stored,
    path: `media/${stored}`,
    mimeType: info.mimeType,
    size: info.size,
    width: info.width,
    height: info.height,
    duration: info.duration,
  };
}

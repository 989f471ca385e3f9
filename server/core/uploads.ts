/**
 * Staging of uploads: the bytes stream to a file under the data dir's
 * `uploads/` folder (never held in memory), with a size limit; the player
 * then measures the file and moves it into the Project. A refused or failed
 * upload leaves nothing behind.
 * @module
 */
import { CueportError } from "./errors.ts";
import { diskFullMessage, isDiskFull } from "../../lib/disk_full.ts";

/** Options of `stageUpload`. */
export interface StageOptions {
  /** The staging folder. */
  dir: string;
  /** Bytes above which the upload is refused (413). */
  maxBytes: number;
  /** Called as bytes arrive: `(received, expected or null)`. */
  onProgress?: (bytes: number) => void;
}

/** Writes `body` to a new staging file; returns its path and size. */
export async function stageUpload(
  body: AsyncIterable<Uint8Array>,
  options: StageOptions,
): Promise<{ path: string; size: number }> {
  await Deno.mkdir(options.dir, { recursive: true });
  const path = `${options.dir}/${crypto.randomUUID()}.upload`;
  const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > options.maxBytes) {
        throw new CueportError(
          "PAYLOAD_TOO_LARGE",
          `Upload too large: over ${options.maxBytes} bytes (setting maxUploadBytes)`,
          { limit: options.maxBytes },
        );
      }
      let written = 0;
      while (written < chunk.length) written += await file.write(chunk.subarray(written));
      options.onProgress?.(size);
    }
    if (size === 0) {
      throw new CueportError("INVALID_MESSAGE", "Invalid file: the upload is empty", {
        field: "file",
      });
    }
    await file.sync();
    return { path, size };
  } catch (error) {
    file.close();
    await Deno.remove(path).catch(() => {});
    if (isDiskFull(error)) {
      // The staging folder is `<data dir>/uploads`: the data dir's disk is the full one.
      const dataDir = options.dir.slice(0, Math.max(0, options.dir.lastIndexOf("/"))) || ".";
      throw new CueportError("DISK_FULL", diskFullMessage(dataDir, "the upload"));
    }
    throw error;
  } finally {
    try {
      file.close();
    } catch { /* closed above */ }
  }
}

/** Removes staging files left by a crash (called at start). */
export async function clearStaging(dir: string): Promise<void> {
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name.endsWith(".upload")) await Deno.remove(`${dir}/${entry.name}`).catch(() => {});
    }
  } catch {
    // no staging folder yet
  }
}

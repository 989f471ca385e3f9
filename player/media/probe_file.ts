/**
 * A file on this machine measured from its bytes, or refused with the player's stable codes:
 * what `file.import` measures before it copies anything (`edits/file_import.ts`), and what
 * `media.probe` (protocol 1.18) answers, so that a rig group refuses a file before it copies it
 * to every rig, with the code a rig alone answers.
 * @module
 */
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { Refusal } from "../errors.ts";
import { fileSource, MediaError, type MediaInfo, probeMedia } from "./probe.ts";

/**
 * Measures the file at `path` (header reads only, bounded: `probe.ts`).
 * @throws {Refusal} NOT_FOUND, UNSUPPORTED_MEDIA, CORRUPT_MEDIA; ACTION_REFUSED when unreadable
 */
export async function probeFile(path: string): Promise<MediaInfo & { size: number }> {
  let source;
  try {
    source = await fileSource(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Refusal(`No file at "${path}"`, RpcErrorCode.NOT_FOUND);
    }
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

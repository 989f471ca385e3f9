/**
 * A shader uploaded with its `IMPORTED` images (several file fields of one multipart upload,
 * the `.fs` first): the files staged in a folder of their own under their names, so that
 * `preset.import` of the `.fs` finds its images beside it, as from a folder on the show machine
 * (`docs/presets.md`, "Imported images"). The folder is removed once the import ended.
 * @module
 */
import { sanitizeFileName } from "../../lib/file_names.ts";
import { CueportError } from "./errors.ts";
import { stageUpload } from "./uploads.ts";

/** A further file of a multipart upload: its name and its bytes as they arrive. */
export interface UploadPart {
  name: string;
  chunks: AsyncIterable<Uint8Array>;
}

/** The most files sent with a shader (its images: the check takes at most 16). */
export const MAX_SHADER_IMAGES = 16;

/**
 * Runs `use` on the path of the staged shader `shader`: with no further files, where it is;
 * else in a folder of its own beside its images (each within `maxBytes`, at most
 * MAX_SHADER_IMAGES, named as sent), removed afterwards.
 * @throws {CueportError} INVALID_MESSAGE for a file name that is not one, or too many files;
 * PAYLOAD_TOO_LARGE for one too large
 */
export async function withImagesBeside<T>(
  shader: string,
  options: { name: string; maxBytes: number; others?: AsyncIterable<UploadPart> },
  stagingDir: string,
  use: (path: string) => Promise<T>,
): Promise<T> {
  if (!options.others) return await use(shader);
  const folder = `${stagingDir}/${crypto.randomUUID()}.shader`;
  try {
    await Deno.mkdir(folder, { recursive: true });
    const path = `${folder}/${safeName(options.name)}`;
    await Deno.rename(shader, path);
    let count = 0;
    for await (const part of options.others) {
      if (++count > MAX_SHADER_IMAGES) {
        throw new CueportError(
          "INVALID_MESSAGE",
          `Invalid file: more than ${MAX_SHADER_IMAGES} files sent with the shader (its IMPORTED images are at most ${MAX_SHADER_IMAGES})`,
          { field: "file" },
        );
      }
      const name = safeName(part.name);
      const staged = await stageUpload(part.chunks, { dir: folder, maxBytes: options.maxBytes });
      await Deno.rename(staged.path, `${folder}/${name}`);
    }
    return await use(path);
  } finally {
    await Deno.remove(folder, { recursive: true }).catch(() => {});
  }
}

/** A sent file's name as a file name, or the refusal naming it. */
function safeName(name: string): string {
  const safe = sanitizeFileName(name);
  if ("error" in safe) {
    throw new CueportError("INVALID_MESSAGE", `Invalid file name: ${safe.error}`, {
      field: "file",
    });
  }
  return safe.name;
}

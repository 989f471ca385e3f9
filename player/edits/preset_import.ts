/**
 * Reading an ISF file (`.fs`) for `preset.import`: its text, and the name
 * the preset gets from the file's.
 * @module
 */
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import type { Preset } from "../../protocol/model.ts";
import { quoted, Refusal } from "../errors.ts";
import { missing } from "./draft.ts";

/** The most characters preset code may have (the `code` param's limit). */
export const MAX_CODE_CHARS = 200_000;

/**
 * The text of the ISF file at `path`.
 * @throws {Refusal} NOT_FOUND, or INVALID_PARAMS for a file too big or not UTF-8 text
 */
export async function readShaderFile(path: string): Promise<string> {
  const bad = (why: string) =>
    new Refusal(`Invalid params.path: ${quoted(path)} ${why}`, RpcErrorCode.INVALID_PARAMS);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw missing(`No file at ${quoted(path)}`);
    throw bad(`cannot be read: ${(error as Error).message}`);
  }
  if (!info.isFile) throw bad("is not a file");
  // UTF-8 takes at most 4 bytes a character: more bytes cannot be within the limit.
  if (info.size > MAX_CODE_CHARS * 4) throw bad(`is ${info.size} bytes: too big for a shader`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await Deno.readFile(path));
  } catch {
    throw bad("is not UTF-8 text: an ISF file is a text file");
  }
  if (text.length > MAX_CODE_CHARS) {
    throw bad(`has ${text.length} characters; preset code has at most ${MAX_CODE_CHARS}`);
  }
  return text.replace(/^\uFEFF/, "");
}

/**
 * The text of the vertex shader beside the ISF file at `path` (ISF's `.vs`: the same name
 * with `.vs`, or `.VS` beside an `.FS`), or null when there is none.
 * @throws {Refusal} INVALID_PARAMS for a `.vs` that cannot be read, too big or not UTF-8 text
 */
export async function readVertexFileBeside(path: string): Promise<string | null> {
  if (!/\.fs$/i.test(path)) return null;
  const upper = path.endsWith(".FS");
  const beside = path.slice(0, -3) + (upper ? ".VS" : ".vs");
  try {
    if (!(await Deno.stat(beside)).isFile) return null;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    const why = `cannot be read: ${(error as Error).message}`;
    throw new Refusal(`Invalid params.path: ${quoted(beside)} ${why}`, RpcErrorCode.INVALID_PARAMS);
  }
  return await readShaderFile(beside);
}

/** `wanted`, or the file's name without `.fs`, made free among the presets of `kind`. */
export function importName(
  path: string,
  wanted: string | undefined,
  kind: Preset["kind"],
  presets: readonly Preset[],
): string {
  const file = path.split(/[\\/]/).pop() ?? "";
  const base = (wanted ?? file.replace(/\.fs$/i, "").trim().slice(0, 190)) || "ISF shader";
  const taken = new Set(presets.filter((p) => p.kind === kind).map((p) => p.name.toLowerCase()));
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base} (${n})`;
  return name;
}

/**
 * The JSON header of an Interactive Shader Format (ISF 2.0) shader: the first
 * `/* ... *\/` comment of the file. Parsed with Microsoft's `jsonc-parser`
 * (the parser of VS Code's settings), which reports errors with offsets and
 * gives a tree, so that every problem is named by its line and column in the
 * user's code rather than by a position in a JSON string.
 * @module
 */
import { findNodeAtLocation, type Node, parseTree, printParseErrorCode } from "jsonc-parser";
import type { ParseError } from "jsonc-parser";
import { z } from "zod";
import { ISF_MAX_PASSES } from "../../protocol/output.ts";
import { type IsfProblem, problemAt } from "./problems.ts";

const Num = z.number().finite();
const Identifier = z.string().regex(
  /^[A-Za-z][A-Za-z0-9_]{0,63}$/,
  "must be a GLSL name (a letter, then letters, digits or _)",
);

/** The input types of ISF 2.0. */
export const ISF_INPUT_TYPES = [
  "event",
  "bool",
  "long",
  "float",
  "point2D",
  "color",
  "image",
  "audio",
  "audioFFT",
] as const;

/** An optional value that files also write as `null` (read as absent). */
function absentOrNull<T extends z.ZodType>(type: T) {
  return type.nullish().transform((value) => value ?? undefined);
}

/** One entry of the header's `INPUTS`. */
export const IsfInput = z.object({
  NAME: Identifier,
  TYPE: z.enum(ISF_INPUT_TYPES),
  LABEL: z.string().optional(),
  DEFAULT: absentOrNull(z.union([Num, z.boolean(), z.array(Num)])),
  // ISF Editor files give a bool input MIN false and MAX true; they mean nothing there.
  MIN: absentOrNull(z.union([Num, z.array(Num), z.boolean()])),
  MAX: absentOrNull(z.union([Num, z.array(Num), z.boolean()])),
  IDENTITY: absentOrNull(z.union([Num, z.array(Num)])),
  VALUES: z.array(z.number().int()).optional(),
  LABELS: z.array(z.string()).optional(),
});

/** One render pass (`PASSES`). */
export const IsfPass = z.object({
  TARGET: Identifier.optional(),
  PERSISTENT: z.union([z.boolean(), z.number()]).optional(),
  FLOAT: z.union([z.boolean(), z.number()]).optional(),
  WIDTH: z.union([z.string(), Num]).optional(),
  HEIGHT: z.union([z.string(), Num]).optional(),
});

/** A file an `IMPORTED` image is read from (beside the `.fs`); a cube map's list is not taken. */
const ImportedPath = z.string().min(1).max(255).regex(
  /^[^\\/]+$/,
  "must be a file name beside the .fs (no folder)",
);

/**
 * The header's `IMPORTED` images: ISF 2.0's object (`{"noiseTex": {"PATH": "noise.png"}}`) or
 * ISF 1.0's array (`[{"NAME": "noiseTex", "PATH": "noise.png"}]`).
 */
export const IsfImported = z.union([
  z.record(Identifier, z.object({ PATH: ImportedPath })),
  z.array(z.object({ NAME: Identifier, PATH: ImportedPath })),
]);

/** The header as the ISF 2.0 specification defines it (unknown keys are kept out). */
export const IsfHeader = z.object({
  // Many published files write the versions as numbers ("ISFVSN": 2).
  ISFVSN: z.union([z.string(), Num]).optional(),
  VSN: z.union([z.string(), Num]).optional(),
  DESCRIPTION: z.string().optional(),
  CREDIT: z.string().optional(),
  CATEGORIES: z.array(z.string()).optional(),
  INPUTS: z.array(IsfInput).default([]),
  PASSES: z.array(IsfPass).max(
    ISF_MAX_PASSES,
    `a shader has at most ${ISF_MAX_PASSES} passes (their targets are the GPU's memory)`,
  ).default([]),
  IMPORTED: IsfImported.optional(),
});

/** A parsed header. */
export type IsfHeader = z.infer<typeof IsfHeader>;
/** A parsed input. */
export type IsfInput = z.infer<typeof IsfInput>;

/** The most `IMPORTED` images a header declares (the collection's most is 4). */
export const MAX_IMPORTED_IMAGES = 16;

/** One `IMPORTED` image: its name in the code and the file it is read from. */
export interface ImportedImage {
  readonly name: string;
  readonly path: string;
}

/** The header's `IMPORTED` images in order, whichever form it is written in. */
export function importedImages(header: IsfHeader): ImportedImage[] {
  const imported = header.IMPORTED;
  if (!imported) return [];
  if (Array.isArray(imported)) return imported.map((i) => ({ name: i.NAME, path: i.PATH }));
  return Object.entries(imported).map(([name, i]) => ({ name, path: i.PATH }));
}

/** The header and where it sits in the code. */
export interface HeaderSplit {
  /** The JSON text between the comment's markers. */
  readonly json: string;
  /** Offset of `json` in the code. */
  readonly jsonStart: number;
  /** Offset just after the closing `*\/`. */
  readonly end: number;
}

/** Finds the header comment, or a problem at line 1. */
export function splitHeader(code: string): HeaderSplit | IsfProblem {
  const start = code.search(/\S/);
  if (start < 0 || !code.startsWith("/*", start)) {
    return problemAt(code, Math.max(start, 0), "ISF code must begin with a /*{ JSON }*/ header");
  }
  const close = code.indexOf("*/", start + 2);
  if (close < 0) return problemAt(code, start, "the header comment is not closed with */");
  return { json: code.slice(start + 2, close), jsonStart: start + 2, end: close + 2 };
}

/** The header's JSON checked against the ISF schema; problems name lines in `code`. */
export function parseHeader(code: string, split: HeaderSplit): IsfHeader | IsfProblem[] {
  const errors: ParseError[] = [];
  const tree = parseTree(split.json, errors, { allowTrailingComma: true, disallowComments: true });
  if (errors.length > 0 || tree === undefined) {
    const first = errors[0];
    const offset = split.jsonStart + (first?.offset ?? 0);
    const what = first ? printParseErrorCode(first.error) : "EmptyHeader";
    return [problemAt(code, offset, `the header is not valid JSON (${what})`)];
  }
  const checked = IsfHeader.safeParse(nodeValue(tree));
  if (checked.success) return checked.data;
  return checked.error.issues.map((issue) => {
    const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
    const node = nearestNode(tree, path);
    const where = path.length > 0 ? `${path.join(".")}: ` : "";
    return problemAt(code, split.jsonStart + node.offset, `${where}${issue.message}`);
  });
}

/** The offset of a value inside the header, for problems found after parsing. */
export function headerOffset(split: HeaderSplit, path: (string | number)[]): number {
  const tree = parseTree(split.json, [], { allowTrailingComma: true });
  return split.jsonStart + (tree ? nearestNode(tree, path).offset : 0);
}

function nearestNode(tree: Node, path: (string | number)[]): Node {
  for (let n = path.length; n >= 0; n--) {
    const node = findNodeAtLocation(tree, path.slice(0, n));
    if (node) return node;
  }
  return tree;
}

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case "object":
      return Object.fromEntries(
        (node.children ?? []).flatMap((property) => {
          const [key, value] = property.children ?? [];
          return key && value ? [[String(key.value), nodeValue(value)]] : [];
        }),
      );
    case "array":
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

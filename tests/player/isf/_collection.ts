/**
 * The ISF community's collection (`tests/fixtures/isf_files/`, ISF-Files at a pinned commit):
 * its `.fs` files, the cause of a refusal, and the table of refusals by cause that
 * `docs/presets.md` carries ("The ISF collection"), written and checked by `collection_test.ts`.
 * @module
 */
import { isfKindOf } from "../../../player/isf/mod.ts";
import type { IsfKind } from "../../../player/isf/mod.ts";

/** The vendored collection. */
export const COLLECTION_DIR: URL = new URL("../../fixtures/isf_files/", import.meta.url);

/** One `.fs` file of the collection. */
export interface CollectionShader {
  /** Its file name (`Bad TV.fs`). */
  name: string;
  /**
   * As `preset.import` decides (`isfKindOf`): `transition` by ISF's transition rule,
   * `visualizer` when it declares an audio input, `generator` when it declares no image input.
   */
  kind: IsfKind;
  code: string;
  /** Its `.vs` beside it (the same name), as `preset.import` takes it, when there is one. */
  vertexCode?: string;
}

/** Every `.fs` of the collection, by name. */
export async function loadCollection(): Promise<CollectionShader[]> {
  const shaders: CollectionShader[] = [];
  for await (const entry of Deno.readDir(COLLECTION_DIR)) {
    if (!entry.isFile || !entry.name.endsWith(".fs")) continue;
    const code = await Deno.readTextFile(new URL(encodeURIComponent(entry.name), COLLECTION_DIR));
    const vs = new URL(encodeURIComponent(entry.name.replace(/\.fs$/, ".vs")), COLLECTION_DIR);
    const vertexCode = await Deno.readTextFile(vs).catch(() => undefined);
    shaders.push({
      name: entry.name,
      kind: isfKindOf(code),
      code,
      ...(vertexCode && { vertexCode }),
    });
  }
  return shaders.sort((a, b) => a.name.localeCompare(b.name));
}

/** The causes of refusal, each by a pattern of its first problem's message, in the docs' order. */
const CAUSES: ReadonlyArray<readonly [cause: string, pattern: RegExp]> = [
  [
    "A second image input (transitions' `startImage` and `endImage`, masks, maps)",
    /is a transition's picture: add the preset with kind "transition"/,
  ],
  ["No `inputImage` (a generator)", /an effect's shader takes the layer's picture/],
  ["A varying set by its own vertex shader (`.vs`)", /a varying set by the shader's own vertex/],
  ["`MIN` above `MAX`", /INPUTS\.\d+: MIN .* is above MAX/],
  ["An `IMG_*` call on an `IMPORTED` image", /IMG_\w+: ".*" is not an image or audio input/],
];

/** The cause of a refusal from its first problem (`code: line 9, column 5: INPUTS.0: ...`). */
export function causeOf(problem: string): string {
  const message = problem.replace(/^code: line \d+, column \d+: /, "");
  return CAUSES.find(([, pattern]) => pattern.test(message))?.[0] ?? `Other: ${message}`;
}

/** The docs' table of `refused` (file name to its first problem), by cause. */
export function refusalTable(refused: ReadonlyMap<string, string>): string {
  const byCause = new Map<string, string[]>();
  for (const [name, problem] of refused) {
    const cause = causeOf(problem);
    byCause.set(cause, [...byCause.get(cause) ?? [], name.replace(/\.fs$/, "")]);
  }
  const order = (cause: string) => {
    const at = CAUSES.findIndex(([known]) => known === cause);
    return at < 0 ? CAUSES.length : at;
  };
  const rows = [...byCause].sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b));
  return [
    "| Cause | Files | Names |",
    "| --- | --- | --- |",
    ...rows.map(([cause, names]) =>
      `| ${cause.replaceAll("|", "\\|")} | ${names.length} | ${names.sort().join(", ")} |`
    ),
  ].join("\n");
}

/** The markers around the generated part of `docs/presets.md`. */
export const TABLE_START =
  "<!-- isf-collection-table: written by tests/player/isf/collection_test.ts -->";
/** See `TABLE_START`. */
export const TABLE_END = "<!-- /isf-collection-table -->";

/** The generated part of `doc` (between the markers), or null when it has none. */
export function tableIn(doc: string): string | null {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) return null;
  return doc.slice(start + TABLE_START.length, end).trim();
}

/** `doc` with its generated part replaced by `table`. */
export function withTable(doc: string, table: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  return `${doc.slice(0, start + TABLE_START.length)}\n\n${table}\n\n${doc.slice(end)}`;
}

/** Reading the curl examples of a doc, and comparing answers with the documented ones. */
/** A curl command of a doc and the JSON answer documented after it. */
export interface Example {
  command: string;
  expected: unknown | undefined;
}

/** Every `curl` line of a doc, with the JSON block that follows it, if any. */
export function examples(markdown: string): Example[] {
  const blocks = [...markdown.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1],
    text: m[2]!.trim(),
  }));
  const found: Example[] = [];
  blocks.forEach((block, i) => {
    if (block.lang !== "sh" || !block.text.startsWith("curl ")) return;
    const next = blocks[i + 1];
    found.push({
      command: block.text,
      expected: next?.lang === "json" ? JSON.parse(next.text) : undefined,
    });
  });
  return found;
}

/**
 * A value of the documented answers that legitimately differs from run to run, named once by the
 * key that holds it (at any depth) or by its path (`*` stands for one key or index), with why.
 * Such a value may be null on either side, and is otherwise compared by its kind (an object's keys
 * and items still are); every other value must be the documented one.
 */
export interface Varying {
  key?: string;
  path?: string;
  reason: string;
}

/** The values that vary between runs, for every doc's examples. */
export const VARYING: readonly Varying[] = [
  { key: "uptimeSeconds", reason: "seconds since this service started" },
  { path: "$.output", reason: "how a running output draws: null where none runs, as in tests" },
  {
    path: "$.output.framesDrawn",
    reason: "frames drawn since the player started: a running count",
  },
  { path: "$.output.framesPerSecond", reason: "measured by the page over its last second" },
  {
    path: "$.ports.*",
    reason: "a test service takes free ports, and the 5.0.0 ones (null) if asked",
  },
  { key: "etag", reason: "names the picture's bytes, cached per run" },
  { key: "openedAt", reason: "when the editor window was opened: a time of the run" },
];

/** The item that ends a documented array to say the answer has more items after those shown. */
export const MORE = "...";

/**
 * What a documented string does not show as is: `...` (with the blanks around it) elides text; an
 * id minted at run time, its kind and 8 hex digits (`song-53831921`, as `newId` makes them), stands
 * for the live id paired with it.
 */
const STAND_INS = /(\s*\.\.\.\s*|\b[a-z]+-[0-9a-f]{8}\b)/;

/**
 * The ids a doc shows for what its examples created, paired with the ones this run minted: the
 * first time a documented id meets a live one (at the same place of an answer), and from then on
 * always that one, both ways.
 */
export class MintedIds {
  #live = new Map<string, string>();
  /** `text` (a command) with each documented id paired so far replaced by this run's. */
  toLive(text: string): string {
    for (const [documented, live] of this.#live) text = text.replaceAll(documented, live);
    return text;
  }
  /** Pairs a documented id with a live one: false if either is paired with another already. */
  pair(documented: string, live: string): boolean {
    const known = this.#live.get(documented);
    if (known !== undefined) return known === live;
    if ([...this.#live.values()].includes(live)) return false;
    this.#live.set(documented, live);
    return true;
  }
}

/** Whether `path` is one of `varying`. */
function varies(path: string, varying: readonly Varying[]): boolean {
  const key = /\.([^.[\]]+)$/.exec(path)?.[1];
  return varying.some((v) =>
    v.key !== undefined
      ? v.key === key
      : new RegExp(`^${v.path!.replace(/[.[\]$]/g, "\\$&").replaceAll("*", "[^.\\[\\]]+")}$`)
        .test(path)
  );
}

/** The JSON kind of a value: null, array, object, string, number or boolean. */
function kind(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/** Whether a live string is the documented one, with its {@link STAND_INS}. */
function sameText(actual: string, expected: string, ids: MintedIds): boolean {
  const minted: string[] = [];
  const source = expected.split(STAND_INS).map((part, i) => {
    if (i % 2 === 0) return part.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
    if (part.trim() === "...") return "[\\s\\S]*";
    minted.push(part);
    return `(${part.slice(0, part.lastIndexOf("-"))}-[0-9a-f]{8})`;
  }).join("");
  const match = new RegExp(`^${source}$`).exec(actual);
  return match !== null && minted.every((documented, i) => ids.pair(documented, match[i + 1]!));
}

/** Differences between an answer and the documented array `expected`, item by item. */
function arrayDiff(actual: unknown[], expected: unknown[], path: string, ids: MintedIds) {
  const more = expected.at(-1) === MORE;
  const shown = more ? expected.slice(0, -1) : expected;
  const count = more ? actual.length > shown.length : actual.length === shown.length;
  const problems = count ? [] : [
    `${path}: ${actual.length} items, documented ${shown.length}${more ? " and more" : ""}`,
  ];
  return problems.concat(shown.flatMap((item, i) => diff(actual[i], item, `${path}[${i}]`, ids)));
}

/** Differences between the live value at `path` and the documented one. */
function diff(actual: unknown, expected: unknown, path: string, ids: MintedIds): string[] {
  const varying = varies(path, VARYING);
  if (varying && (actual === null || expected === null)) return [];
  const problem = [`${path}: ${JSON.stringify(actual)} != documented ${JSON.stringify(expected)}`];
  if (kind(actual) !== kind(expected)) return problem;
  if (Array.isArray(expected)) return arrayDiff(actual as unknown[], expected, path, ids);
  if (kind(expected) === "object") {
    const a = actual as Record<string, unknown>, e = expected as Record<string, unknown>;
    const keys = (o: object) => Object.keys(o).sort().join();
    if (keys(a) !== keys(e)) return [`${path}: keys ${keys(a)} != documented ${keys(e)}`];
    return Object.keys(e).flatMap((k) => diff(a[k], e[k], `${path}.${k}`, ids));
  }
  if (varying) return [];
  const same = typeof expected === "string"
    ? sameText(actual as string, expected, ids)
    : actual === expected;
  return same ? [] : problem;
}

/**
 * Differences between a live answer and the documented one: every key, every array item and every
 * value, except the {@link VARYING} ones (compared by kind) and the minted ids (paired in `ids`). A
 * documented array ending in `"..."` ({@link MORE}) shows the first items of a longer one; `...` in
 * a documented string elides text.
 */
export function answerDiff(actual: unknown, expected: unknown, ids = new MintedIds()): string[] {
  return diff(actual, expected, "$", ids);
}

/**
 * Runs each of `list`'s commands with `sh` in `work`, made live by `o.live` (the docs' address
 * and paths for this run's) and `o.ids` (the minted ids), and returns how each answer differs
 * from the one documented (`answerDiff`), each after its command. A command that exits with
 * an error throws, naming it.
 */
export async function runExamples(
  list: readonly Example[],
  o: { work: string; ids: MintedIds; live: (command: string) => string },
): Promise<string[]> {
  const problems: string[] = [];
  for (const { command, expected } of list) {
    const line = o.ids.toLive(o.live(command));
    const out = await new Deno.Command("sh", { args: ["-c", line], cwd: o.work, stdout: "piped" })
      .output();
    if (out.code !== 0) throw new Error(`The docs' command exited ${out.code}: ${command}`);
    const answer = JSON.parse(new TextDecoder().decode(out.stdout));
    if (expected === undefined) continue;
    problems.push(...answerDiff(answer, expected, o.ids).map((diff) => `${command}\n  ${diff}`));
  }
  return problems;
}

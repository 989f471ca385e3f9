/**
 * How many loop iterations a pixel of each ISF shader of a folder runs, at most, as its
 * loops are written: the figure behind LOOP_CAP (`player/isf/bounds.ts`). Each `for` loop
 * of the form `for (int|float i = A; i <|<=|>|>= B; i++|i--|i += s|i -= s)` with numbers
 * for A, B and s (after macros) runs its count of iterations; nested loops multiply, and a
 * function called in a loop counts its loops each call. Other loops (a bound from an input,
 * a `while`) are listed as unknown with their shader.
 *
 * `deno run --allow-read tools/isf_loop_census.ts <folder of .fs files>`
 * @module
 */
import { countedParse, countedPreprocess } from "../player/isf/glsl_counted.ts";
import { WorkBudget } from "../player/isf/bounds.ts";
import { parseHeader, splitHeader } from "../player/isf/header.ts";
import { fragmentSource } from "../player/isf/glsl.ts";

type Node = Record<string, unknown> & { type?: string };

/** A number literal node's value (with a unary minus), or null. */
function numberOf(node: unknown): number | null {
  const n = node as Node | null;
  if (!n) return null;
  if (n.type === "int_constant" || n.type === "float_constant") return parseFloat(String(n.token));
  if (n.type === "unary" && (n.operator as Node)?.literal === "-") {
    const v = numberOf(n.expression);
    return v === null ? null : -v;
  }
  if (n.type === "group") return numberOf(n.expression);
  return null;
}

/** The iterations of a counted `for` loop, or null when they are not written as numbers. */
function tripsOf(loop: Node): number | null {
  const init = loop.init as Node;
  const declaration = ((init?.declarations as Node[]) ?? [])[0];
  const start = numberOf(declaration?.initializer);
  const name = (declaration?.identifier as Node)?.identifier;
  const condition = loop.condition as Node;
  const limit = numberOf(condition?.right);
  const op = (condition?.operator as Node)?.literal as string;
  if (start === null || limit === null || (condition?.left as Node)?.identifier !== name) {
    return null;
  }
  const step = stepOf(loop.operation as Node);
  if (step === null || step === 0) return null;
  // How many steps from start reach the limit: i < B runs while i + k*step < B.
  const span = (limit - start) / step;
  if (span < 0) return 0;
  const isInclusive = op === "<=" || op === ">=";
  return isInclusive ? Math.floor(span) + 1 : Math.ceil(span);
}

function stepOf(operation: Node): number | null {
  if (!operation) return null;
  const op = (operation.operator as Node)?.literal;
  if (operation.type === "postfix" || operation.type === "unary") {
    const text = JSON.stringify(operation);
    if (text.includes('"++"')) return 1;
    if (text.includes('"--"')) return -1;
  }
  if (operation.type === "assignment" && (op === "+=" || op === "-=")) {
    const v = numberOf(operation.right);
    return v === null ? null : op === "+=" ? v : -v;
  }
  return null;
}

/** The iterations of the loops under `node` (Infinity when one is unknown). */
function costOf(node: unknown, functions: Map<string, Node>, seen: Map<string, number>): number {
  if (Array.isArray(node)) return node.reduce((s, c) => s + costOf(c, functions, seen), 0);
  if (typeof node !== "object" || node === null) return 0;
  const n = node as Node;
  if (n.type === "for_statement" || n.type === "while_statement" || n.type === "do_statement") {
    const trips = n.type === "for_statement" ? tripsOf(n) : null;
    const inner = costOf(n.body, functions, seen) + costOf(n.condition, functions, seen);
    if (trips === null) {
      const at = (n.location as { start: { offset: number } } | undefined)?.start.offset ?? 0;
      UNCOUNTED.push(CURRENT.text.slice(at, at + 70).split("\n")[0]!);
    }
    return trips === null ? Infinity : trips * (1 + inner);
  }
  let sum = 0;
  if (n.type === "function_call") {
    const name = ((n.identifier as Node)?.identifier ?? "") as string;
    const body = functions.get(name);
    if (body && !seen.has(name)) seen.set(name, costOf(body, functions, seen));
    sum += seen.get(name) ?? 0;
  }
  for (const [key, value] of Object.entries(n)) {
    if (key !== "location" && typeof value === "object") sum += costOf(value, functions, seen);
  }
  return sum;
}

/** The loops not counted, as written (expanded). */
const UNCOUNTED: string[] = [];
const CURRENT = { text: "" };

/**
 * The most iterations a pixel of `code` runs, or null when its header or sources cannot be
 * read (any kind: generators and transitions too, their images as samplers).
 */
export function loopCensus(code: string): number | null {
  const split = splitHeader(code);
  const header = "json" in split ? parseHeader(code, split) : [];
  if (Array.isArray(header) || !("json" in split)) return null;
  const samplers = [
    ...header.INPUTS.filter((i) => ["image", "audio", "audioFFT"].includes(i.TYPE)).map((i) =>
      i.NAME
    ),
    ...header.PASSES.flatMap((p) => p.TARGET ? [p.TARGET] : []),
  ];
  const fragment = fragmentSource(code, split.end, header.INPUTS, samplers);
  if (Array.isArray(fragment)) return null;
  const budget = new WorkBudget({ tokens: 1e9, parseSteps: 1e9, expandedCharacters: 1e9 });
  const text = countedPreprocess(fragment.source, { GL_ES: "1" }, budget);
  CURRENT.text = text;
  const program = countedParse(text, budget).program as unknown as Node[];
  const functions = new Map<string, Node>();
  for (const node of program) {
    if (node.type !== "function") continue;
    const name = ((node.prototype as Node)?.header as Node)?.name as Node;
    functions.set(String(name?.identifier), node.body as Node);
  }
  return costOf(functions.get("main"), functions, new Map());
}

if (import.meta.main) {
  const folder = Deno.args[0] ?? "tools/reliability/isf_corpus";
  const rows: Array<[string, number | null]> = [];
  for await (const entry of Deno.readDir(folder)) {
    if (!entry.name.endsWith(".fs")) continue;
    const code = await Deno.readTextFile(`${folder}/${entry.name}`);
    try {
      UNCOUNTED.length = 0;
      rows.push([entry.name, loopCensus(code)]);
      if (UNCOUNTED.length > 0) console.log(`${entry.name}: not counted:`, [...new Set(UNCOUNTED)]);
    } catch {
      rows.push([entry.name, null]);
    }
  }
  const looping = rows.filter(([, n]) => n !== null && n > 0);
  const known = looping.filter(([, n]) => n !== Infinity).sort((a, b) => b[1]! - a[1]!);
  console.log(
    `${rows.length} shaders, ${looping.length} with loops, ${
      rows.filter(([, n]) => n === null).length
    } not checked`,
  );
  console.log("most iterations a pixel (counted loops):", known.slice(0, 10));
  console.log("loops not counted:", looping.filter(([, n]) => n === Infinity).map(([f]) => f));
}

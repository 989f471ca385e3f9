/**
 * ISF's `PASSES`: each pass renders into its `TARGET` (an image later passes
 * read by name), sized by its `WIDTH` and `HEIGHT`, expressions of `$WIDTH`,
 * `$HEIGHT` (the size asked of the shader) and `$<input>` (an input's value):
 * `"floor($WIDTH/4.0)"`. The expressions are parsed with `jsep` (a small,
 * maintained parser of JavaScript expressions, 2 ms to load) and evaluated
 * here over a fixed list of functions: mathjs, which the ISF reference
 * renderer in JavaScript uses, takes 300 to 500 ms to load, in the player and
 * in every check's worker. As in DDMathParser (the ISF Editor's), `^` is a
 * power.
 * @module
 */
import jsep from "jsep";
import type { IsfHeader, IsfInput } from "./header.ts";

jsep.removeBinaryOp("^");
jsep.addBinaryOp("^", 11, true);

/** The largest side of a pass's target, in pixels (the page also keeps to its GL's limit). */
export const MAX_TARGET_SIDE = 8192;

const FUNCTIONS: Record<string, (...args: number[]) => number> = {
  floor: Math.floor,
  ceil: Math.ceil,
  round: Math.round,
  trunc: Math.trunc,
  abs: Math.abs,
  sqrt: Math.sqrt,
  pow: Math.pow,
  exp: Math.exp,
  log: Math.log,
  log2: Math.log2,
  log10: Math.log10,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  min: Math.min,
  max: Math.max,
  clamp: (x, lo, hi) => Math.min(Math.max(x, lo ?? x), hi ?? x),
};

const BINARY: Record<string, (a: number, b: number) => number> = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => a / b,
  "%": (a, b) => a % b,
  "^": (a, b) => a ** b,
  "**": (a, b) => a ** b,
  "<": (a, b) => Number(a < b),
  "<=": (a, b) => Number(a <= b),
  ">": (a, b) => Number(a > b),
  ">=": (a, b) => Number(a >= b),
  "==": (a, b) => Number(a === b),
  "!=": (a, b) => Number(a !== b),
  "&&": (a, b) => Number(a !== 0 && b !== 0),
  "||": (a, b) => Number(a !== 0 || b !== 0),
};

const UNARY: Record<string, (a: number) => number> = {
  "-": (a) => -a,
  "+": (a) => a,
  "!": (a) => Number(a === 0),
};

/** A pass as the renderer takes it: where it draws and how its target is kept. */
export interface IsfPassSpec {
  /** The image the pass renders into, by name; null: the shader's output. */
  readonly target: string | null;
  /** Kept from frame to frame (else cleared every frame). */
  readonly persistent: boolean;
  /** Float texels (32-bit, or 16-bit where the GL cannot filter 32). */
  readonly float: boolean;
}

/** The passes of `header` as the renderer takes them. */
export function passSpecs(header: IsfHeader): IsfPassSpec[] {
  return header.PASSES.map((p) => ({
    target: p.TARGET ?? null,
    persistent: isOn(p.PERSISTENT),
    float: isOn(p.FLOAT),
  }));
}

/** Inputs whose value an expression may read (`$<name>`): the scalar ones. */
function scalarInputs(inputs: readonly IsfInput[]): Set<string> {
  const types = new Set(["float", "long", "bool", "event"]);
  return new Set(inputs.filter((i) => types.has(i.TYPE)).map((i) => i.NAME));
}

/**
 * What is wrong with the passes of `header`, each as a path in the header
 * (`["PASSES", 1, "WIDTH"]`) and a message: targets named twice or taken by
 * an input or by ISF, size expressions that do not parse, name what they
 * cannot read, or give no number for the inputs' defaults.
 */
export function passProblems(
  header: IsfHeader,
  builtIns: readonly string[],
): Array<{ path: (string | number)[]; message: string }> {
  const problems: Array<{ path: (string | number)[]; message: string }> = [];
  const inputs = new Set(header.INPUTS.map((i) => i.NAME));
  const targets = new Set<string>();
  const readable = scalarInputs(header.INPUTS);
  const values = defaultValues(header.INPUTS);
  for (const [i, pass] of header.PASSES.entries()) {
    const name = pass.TARGET;
    const at = (key: string, message: string) =>
      problems.push({ path: ["PASSES", i, key], message: `PASSES.${i}.${key}: ${message}` });
    if (name && inputs.has(name)) at("TARGET", `"${name}" is the name of an input`);
    else if (name && builtIns.includes(name)) at("TARGET", `"${name}" is a name ISF declares`);
    else if (name && targets.has(name)) at("TARGET", `"${name}" is the target of an earlier pass`);
    if (name) targets.add(name);
    for (const key of ["WIDTH", "HEIGHT"] as const) {
      const expression = pass[key];
      if (expression === undefined) continue;
      const problem = expressionProblem(expression, readable, values);
      if (problem) at(key, problem);
    }
  }
  return problems;
}

/**
 * The size in pixels of each pass's target for a render of `width` x
 * `height` with the inputs at `values` (their uniform values by name): its
 * expressions' values rounded, at least 1 and at most MAX_TARGET_SIDE; the
 * render size where there is no expression (or no target).
 */
export function passSizes(
  header: IsfHeader,
  values: Readonly<Record<string, number>>,
  width: number,
  height: number,
): Array<[number, number]> {
  const scope = { ...scoped(values), $WIDTH: width, $HEIGHT: height };
  const side = (expression: string | number | undefined, fallback: number) => {
    if (expression === undefined) return fallback;
    const value = evaluateSize(expression, scope);
    if (!Number.isFinite(value)) return fallback;
    return Math.min(MAX_TARGET_SIDE, Math.max(1, Math.round(value)));
  };
  return header.PASSES.map((p) =>
    p.TARGET ? [side(p.WIDTH, width), side(p.HEIGHT, height)] : [width, height]
  );
}

function expressionProblem(
  expression: string | number,
  readable: ReadonlySet<string>,
  values: Readonly<Record<string, number>>,
): string | null {
  if (typeof expression === "number") {
    return expression >= 1 ? null : `the size ${expression} is below 1 pixel`;
  }
  let tree: jsep.Expression;
  try {
    tree = jsep(expression);
  } catch (error) {
    return `"${expression}" is not an expression: ${(error as Error).message}`;
  }
  const unknown = unknownNames(tree, readable);
  if (unknown) return `"${expression}": ${unknown}`;
  const scope = { ...scoped(values), $WIDTH: 1920, $HEIGHT: 1080 };
  const value = evaluate(tree, scope);
  return Number.isFinite(value)
    ? null
    : `"${expression}" gives no number for 1920 x 1080 and the inputs' defaults`;
}

/** The first name `tree` uses that it may not (null when none). */
function unknownNames(tree: jsep.Expression, readable: ReadonlySet<string>): string | null {
  switch (tree.type) {
    case "Literal":
      return typeof tree.value === "number" ? null : `${tree.raw} is not a number`;
    case "Identifier": {
      const name = String(tree.name);
      if (name === "$WIDTH" || name === "$HEIGHT") return null;
      if (name.startsWith("$") && readable.has(name.slice(1))) return null;
      return name.startsWith("$")
        ? `${name} is not $WIDTH, $HEIGHT nor a float, long or bool input`
        : `${name} is not a variable: write $WIDTH, $HEIGHT or $<input name>`;
    }
    case "CallExpression": {
      const callee = tree.callee as jsep.Expression;
      const name = callee.type === "Identifier" ? String(callee.name) : "";
      if (!(name in FUNCTIONS)) {
        return `${name || "that"} is not a function here (${Object.keys(FUNCTIONS).join(", ")})`;
      }
      return firstOf((tree.arguments as jsep.Expression[]).map((a) => unknownNames(a, readable)));
    }
    case "BinaryExpression":
      if (!(String(tree.operator) in BINARY)) return `the operator ${tree.operator} is not known`;
      return firstOf(
        [tree.left, tree.right].map((e) => unknownNames(e as jsep.Expression, readable)),
      );
    case "UnaryExpression":
      if (!(String(tree.operator) in UNARY)) return `the operator ${tree.operator} is not known`;
      return unknownNames(tree.argument as jsep.Expression, readable);
    case "ConditionalExpression":
      return firstOf(
        [tree.test, tree.consequent, tree.alternate].map((e) =>
          unknownNames(e as jsep.Expression, readable)
        ),
      );
    default:
      return `${tree.type} is not a number`;
  }
}

function firstOf(found: Array<string | null>): string | null {
  return found.find((f) => f !== null) ?? null;
}

/** Parsed expressions, by text: a render state evaluates them every time it is built. */
const parsed = new Map<string, jsep.Expression | null>();

function evaluateSize(expression: string | number, scope: Record<string, number>): number {
  if (typeof expression === "number") return expression;
  let tree = parsed.get(expression);
  if (tree === undefined) {
    try {
      tree = jsep(expression);
    } catch {
      tree = null;
    }
    if (parsed.size >= 256) parsed.delete(parsed.keys().next().value!);
    parsed.set(expression, tree);
  }
  return tree ? evaluate(tree, scope) : NaN;
}

/** The value of a checked expression (NaN for what `unknownNames` refuses). */
function evaluate(tree: jsep.Expression, scope: Readonly<Record<string, number>>): number {
  const of = (e: unknown) => evaluate(e as jsep.Expression, scope);
  switch (tree.type) {
    case "Literal":
      return typeof tree.value === "number" ? tree.value : NaN;
    case "Identifier":
      return scope[String(tree.name)] ?? NaN;
    case "CallExpression": {
      const fn = FUNCTIONS[String((tree.callee as jsep.Expression).name)];
      return fn ? fn(...(tree.arguments as jsep.Expression[]).map(of)) : NaN;
    }
    case "BinaryExpression":
      return BINARY[String(tree.operator)]?.(of(tree.left), of(tree.right)) ?? NaN;
    case "UnaryExpression":
      return UNARY[String(tree.operator)]?.(of(tree.argument)) ?? NaN;
    case "ConditionalExpression":
      return of(tree.test) !== 0 ? of(tree.consequent) : of(tree.alternate);
    default:
      return NaN;
  }
}

function scoped(values: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(values).map(([name, v]) => [`$${name}`, v]));
}

function defaultValues(inputs: readonly IsfInput[]): Record<string, number> {
  const values: Record<string, number> = {};
  const readable = scalarInputs(inputs);
  for (const input of inputs.filter((i) => readable.has(i.NAME))) {
    const value = input.DEFAULT;
    if (typeof value === "number") values[input.NAME] = value;
    else if (typeof value === "boolean") values[input.NAME] = Number(value);
    else values[input.NAME] = input.VALUES?.[0] ?? (typeof input.MIN === "number" ? input.MIN : 0);
  }
  return values;
}

function isOn(value: boolean | number | undefined): boolean {
  return value === true || (typeof value === "number" && value > 0);
}

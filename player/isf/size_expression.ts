/**
 * The size expressions of ISF's `PASSES` (`"floor($WIDTH/4.0)"`), parsed with
 * `jsep` (a small, maintained parser of JavaScript expressions, 2 ms to load)
 * and evaluated here over a fixed list of functions and operators: mathjs,
 * which the ISF reference renderer in JavaScript uses, takes 300 to 500 ms to
 * load, in the player and in every check's worker. As in DDMathParser (the
 * ISF Editor's), `^` is a power.
 * @module
 */
import jsep from "jsep";
import { MAX_EXPRESSION_LENGTH } from "./bounds.ts";

jsep.removeBinaryOp("^");
jsep.addBinaryOp("^", 11, true);

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

/**
 * What is wrong with `expression` (null when nothing): at most
 * MAX_EXPRESSION_LENGTH characters, it must parse, read only `$WIDTH`,
 * `$HEIGHT` and the `readable` names (as `$<name>`), call only the functions
 * here, and give a number in `scope` (`$`-prefixed names).
 */
export function expressionProblem(
  expression: string,
  readable: ReadonlySet<string>,
  scope: Readonly<Record<string, number>>,
): string | null {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    return `the expression is over ${MAX_EXPRESSION_LENGTH} characters (${expression.length})`;
  }
  let tree: jsep.Expression;
  try {
    tree = jsep(expression);
  } catch (error) {
    if (error instanceof RangeError) return `"${expression}" nests too deeply`;
    return `"${expression}" is not an expression: ${(error as Error).message}`;
  }
  try {
    const unknown = unknownNames(tree, readable);
    if (unknown) return `"${expression}": ${unknown}`;
    return Number.isFinite(evaluate(tree, scope)) ? null : `"${expression}" gives no number`;
  } catch (error) {
    if (error instanceof RangeError) return `"${expression}" nests too deeply`;
    throw error;
  }
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
      if (!Object.hasOwn(FUNCTIONS, name)) {
        return `${name || "that"} is not a function here (${Object.keys(FUNCTIONS).join(", ")})`;
      }
      return firstOf((tree.arguments as jsep.Expression[]).map((a) => unknownNames(a, readable)));
    }
    case "BinaryExpression":
      if (!Object.hasOwn(BINARY, String(tree.operator))) {
        return `the operator ${tree.operator} is not known`;
      }
      return firstOf(
        [tree.left, tree.right].map((e) => unknownNames(e as jsep.Expression, readable)),
      );
    case "UnaryExpression":
      if (!Object.hasOwn(UNARY, String(tree.operator))) {
        return `the operator ${tree.operator} is not known`;
      }
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

/**
 * The value of `expression` in `scope` (`$`-prefixed names): NaN when it has
 * none, or is longer than MAX_EXPRESSION_LENGTH (`expressionProblem` refuses it).
 */
export function evaluateExpression(
  expression: string,
  scope: Readonly<Record<string, number>>,
): number {
  if (expression.length > MAX_EXPRESSION_LENGTH) return NaN;
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

/** Only own entries of the tables and the scope, never what objects inherit. */
function own<T>(table: Readonly<Record<string, T>>, key: unknown): T | undefined {
  return Object.hasOwn(table, String(key)) ? table[String(key)] : undefined;
}

/** The value of a checked expression (NaN for what `unknownNames` refuses). */
function evaluate(tree: jsep.Expression, scope: Readonly<Record<string, number>>): number {
  const of = (e: unknown) => evaluate(e as jsep.Expression, scope);
  switch (tree.type) {
    case "Literal":
      return typeof tree.value === "number" ? tree.value : NaN;
    case "Identifier":
      return own(scope, tree.name) ?? NaN;
    case "CallExpression": {
      const fn = own(FUNCTIONS, (tree.callee as jsep.Expression).name);
      return fn ? fn(...(tree.arguments as jsep.Expression[]).map(of)) : NaN;
    }
    case "BinaryExpression":
      return own(BINARY, tree.operator)?.(of(tree.left), of(tree.right)) ?? NaN;
    case "UnaryExpression":
      return own(UNARY, tree.operator)?.(of(tree.argument)) ?? NaN;
    case "ConditionalExpression":
      return of(tree.test) !== 0 ? of(tree.consequent) : of(tree.alternate);
    default:
      return NaN;
  }
}

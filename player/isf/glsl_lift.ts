/**
 * Desktop-GLSL habits of ISF files translated in the lifted ES 3.00 sources (`glsl.ts`), which
 * the output compiles when its GL refuses the ES 1.00 ones and which the check compiles
 * (`glsl_types.ts`), so a shader that runs in other ISF hosts runs here. On the parsed code
 * (`glsl_check.ts`), with the few types these need, as insertions on the user's lines (the log
 * keeps its lines):
 * - an `int` where a float is expected (desktop GLSL converts it): a literal beside a float in an
 *   arithmetic or a comparison, assigned to or initializing a float (`float x = 1;`, `x > 0`,
 *   `x * 2`) gets `.0`; another `int` expression there is wrapped in `float(...)`;
 * - an int literal initializing a `uint` (ES 1.00 code that uses ES 3.00's `uvec2`) gets `u`;
 * - a function of the code named like an ES 3.00 built-in (`sign`, `texture`), which ES 1.00
 *   lets code redeclare and ES 3.00 does not, is renamed `isf_<name>` with its calls.
 * A type this cannot tell (a call of the code's own functions, a struct's field) is left as is.
 * @module
 */
import type { GlslProgram } from "./glsl_counted.ts";
import { type CodeInsertion, placer } from "./loop_cap.ts";

/** Functions of GLSL ES 3.00 and 3.10 that code may not redeclare there (ES 1.00's too). */
const BUILT_IN_FUNCTIONS = new Set(
  ("radians degrees sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh pow exp log exp2 " +
    "log2 sqrt inversesqrt abs sign floor trunc round roundEven ceil fract mod modf min max clamp " +
    "mix step smoothstep isnan isinf floatBitsToInt floatBitsToUint intBitsToFloat uintBitsToFloat " +
    "fma frexp ldexp packSnorm2x16 unpackSnorm2x16 packUnorm2x16 unpackUnorm2x16 packHalf2x16 " +
    "unpackHalf2x16 packUnorm4x8 packSnorm4x8 unpackUnorm4x8 unpackSnorm4x8 length distance dot " +
    "cross normalize faceforward reflect refract matrixCompMult outerProduct transpose determinant " +
    "inverse lessThan lessThanEqual greaterThan greaterThanEqual equal notEqual any all not " +
    "uaddCarry usubBorrow umulExtended imulExtended bitfieldExtract bitfieldInsert bitfieldReverse " +
    "bitCount findLSB findMSB textureSize texture textureProj textureLod textureOffset texelFetch " +
    "texelFetchOffset textureProjOffset textureLodOffset textureProjLod textureProjLodOffset " +
    "textureGrad textureGradOffset textureProjGrad textureProjGradOffset textureGather " +
    "textureGatherOffset textureGatherOffsets dFdx dFdy fwidth").split(" "),
);

/** Built-ins whose value is a float (or a float vector) whatever they are given. */
const FLOAT_FUNCTIONS = new Set(
  ("radians degrees sin cos tan asin acos atan pow exp log exp2 log2 sqrt inversesqrt floor ceil " +
    "fract mod mix step smoothstep length distance dot cross normalize reflect refract texture " +
    "texture2D").split(" "),
);

const ARITHMETIC = new Set(["+", "-", "*", "/", "<", ">", "<=", ">=", "==", "!="]);
const ASSIGNMENTS = new Set(["=", "+=", "-=", "*=", "/="]);

interface Node {
  readonly type?: string;
  readonly location?: { start: { offset: number } };
  readonly [key: string]: unknown;
}

/**
 * The insertions that translate `program`'s desktop habits (parsed from `text`, the marked and
 * expanded form of `fragment`, whose user line 1 is line `lineOffset + 1`); a place a macro
 * writes is left as is.
 */
export function desktopHabits(
  program: GlslProgram,
  text: string,
  fragment: string,
  lineOffset: number,
): CodeInsertion[] {
  const place = placer(text, fragment, lineOffset);
  const found: CodeInsertion[] = [];
  const insert = (offset: number, insertion: string) => {
    const at = offset >= 0 ? place(offset) : null;
    if (at) found.push({ ...at, text: insertion });
  };
  const types = declaredTypes(program.program);
  const typeOf = (node: unknown) => typeOfNode(node as Node, types);
  const convert = converter(typeOf, insert);
  const expected = (type: string | null): "float" | "uint" | null =>
    isFloat(type) ? "float" : type === "uint" || type?.startsWith("uvec") ? "uint" : null;
  const renamed = renamedFunctions(program.program);
  const parameters = parameterTypes(program.program);
  walk(program.program, (node) => {
    const called = nameOf(node)?.identifier;
    const isBuiltIn = called !== undefined && !renamed.has(called) && !parameters.has(called);
    if (node.type === "function_call" && isBuiltIn && FLOAT_FUNCTIONS.has(called)) {
      for (const arg of (node.args as Node[]).filter((a) => a.type !== "literal")) {
        convert(arg, "float");
      }
    } else if (node.type === "function_call" && called && parameters.get(called)) {
      const types = parameters.get(called)!;
      // The arguments, without the commas between them.
      (node.args as Node[]).filter((arg) => arg.type !== "literal").forEach((arg, i) => {
        const to = expected(types[i] ?? null);
        if (to) convert(arg, to);
      });
    }
    if (node.type === "binary" && ARITHMETIC.has(literal(node.operator))) {
      const [left, right] = [node.left as Node, node.right as Node];
      const [toLeft, toRight] = [expected(typeOf(right)), expected(typeOf(left))];
      if (toRight) convert(right, toRight);
      if (toLeft) convert(left, toLeft);
    } else if (node.type === "assignment" && ASSIGNMENTS.has(literal(node.operator))) {
      const to = expected(typeOf(node.left));
      if (to) convert(node.right as Node, to);
    } else if (node.type === "declarator_list") {
      const to = expected(specifierToken(node.specified_type));
      for (const { initializer } of (node.declarations ?? []) as Array<{ initializer?: Node }>) {
        if (to && initializer) convert(initializer, to);
      }
    }
    if (node.type === "function") returnsOf(node, convert, expected);
    const name = nameOf(node);
    if (name && renamed.has(name.identifier)) insert(start(name), "isf_");
  });
  return found;
}

/** `return 0;` in a function that returns a float (or a uint) made `return 0.0;`. */
function returnsOf(
  fn: Node,
  convert: (node: Node, to: "float" | "uint") => void,
  expected: (type: string | null) => "float" | "uint" | null,
): void {
  const header = (fn.prototype as Node | undefined)?.header as Node | undefined;
  const to = expected(specifierToken(header?.returnType));
  if (!to) return;
  walk(fn.body, (node) => {
    if (node.type === "return_statement" && node.expression) convert(node.expression as Node, to);
  });
}

/**
 * What makes `node`, an integer where a `to` is expected, one: `1` -> `1.0` or `1u`, an int or
 * uint expression -> `float(...)` or `uint(...)`, an `ivec2` or `uvec2` -> `vec2(...)`.
 */
function converter(
  typeOf: (node: unknown) => string | null,
  insert: (offset: number, text: string) => void,
): (node: Node, to: "float" | "uint") => void {
  return (node, to) => {
    const type = typeOf(node) ?? "";
    const vector = to === "float" ? /^[iu]vec(\d)$/.exec(type)?.[1] : undefined;
    const isScalar = type === "int" || (to === "float" && type === "uint");
    if (!isScalar && !vector) return;
    const end = endOf(node);
    if (isDecimal(node)) insert(end, to === "float" ? ".0" : "u");
    else if (end >= 0) {
      insert(start(node), vector ? `vec${vector}(` : `${to}(`);
      insert(end, ")");
    }
  };
}

/** Functions the code defines or declares with a built-in's name. */
function renamedFunctions(program: unknown): Set<string> {
  const names = new Set<string>();
  walk(program, (node) => {
    const header = node.type === "function" || node.type === "function_prototype"
      ? (node.prototype as Node | undefined)?.header ?? node.header
      : null;
    const name = (header as { name?: { identifier?: string } } | null)?.name?.identifier;
    if (name && BUILT_IN_FUNCTIONS.has(name)) names.add(name);
  });
  return names;
}

/** The parameters' types of the code's functions, by name (a name overloaded: none). */
function parameterTypes(program: unknown): Map<string, Array<string | null> | null> {
  const functions = new Map<string, Array<string | null> | null>();
  walk(program, (node) => {
    if (node.type !== "function_prototype") return;
    const name = (node.header as { name?: { identifier?: string } }).name?.identifier;
    if (!name) return;
    const types = ((node.parameters ?? []) as Node[]).map((p) =>
      p.quantifier ? null : specifierToken(p)
    );
    const known = functions.get(name);
    const isSame = known === undefined || JSON.stringify(known) === JSON.stringify(types);
    functions.set(name, isSame ? types : null);
  });
  return functions;
}

/** The identifier node that names a function where `node` defines, declares or calls one. */
function nameOf(node: Node): { identifier: string; location?: Node["location"] } | null {
  if (node.type === "function_call") {
    // A call of the code's own function parses as a type's name (a constructor's form).
    const callee = node.identifier as Node;
    const named = (callee.type === "type_specifier" ? callee.specifier : callee) as Node;
    const isNamed = named.type === "identifier" || named.type === "type_name";
    return isNamed ? named as { identifier: string } : null;
  }
  if (node.type === "function_header") return node.name as { identifier: string };
  return null;
}

/** Each variable's type as declared, by name (a name declared with two types: none). */
function declaredTypes(program: unknown): Map<string, string | null> {
  const types = new Map<string, string | null>();
  const declare = (name: string, type: string | null) =>
    types.set(name, types.has(name) ? eitherType(types.get(name)!, type) : type);
  walk(program, (node) => {
    if (node.type === "declarator_list") {
      const type = specifierToken(node.specified_type);
      for (const d of (node.declarations ?? []) as Array<Node & { quantifier?: unknown }>) {
        declare((d.identifier as { identifier: string }).identifier, d.quantifier ? null : type);
      }
    } else if (node.type === "parameter_declaration" && node.identifier) {
      const type = node.quantifier ? null : specifierToken(node);
      declare((node.identifier as { identifier: string }).identifier, type);
    }
  });
  return types;
}

/** A name declared as `was` and as `type`: that type, or vectors' kind (`ivec`), or none. */
function eitherType(was: string | null, type: string | null): string | null {
  if (was === type) return type;
  const kind = (t: string | null) => /^[iu]?vec/.exec(t ?? "")?.[0];
  return kind(was) !== undefined && kind(was) === kind(type) ? kind(type)! : null;
}

/** The type of an expression, where these few rules tell it; else null. */
function typeOfNode(node: Node | undefined, types: Map<string, string | null>): string | null {
  switch (node?.type) {
    case "int_constant":
      return /[uU]$/.test(String(node.token)) ? "uint" : "int";
    case "float_constant":
      return "float";
    case "identifier":
      return types.get(String(node.identifier)) ?? null;
    case "group":
    case "unary":
      return typeOfNode(node.expression as Node, types);
    case "function_call": {
      const callee = node.identifier as Node;
      if (callee.type === "type_specifier") {
        return (callee.specifier as { token?: string }).token ?? null;
      }
      return FLOAT_FUNCTIONS.has(String(callee.identifier)) ? "float" : null;
    }
    case "binary": {
      if (!ARITHMETIC.has(literal(node.operator))) return null;
      if (/^[<>=!]/.test(literal(node.operator))) return "bool";
      const left = typeOfNode(node.left as Node, types);
      const right = typeOfNode(node.right as Node, types);
      if (left === right) return left;
      if (isFloat(left) && right === "int") return left;
      return isFloat(right) && left === "int" ? right : null;
    }
    case "postfix":
      return selectedType(node, typeOfNode(node.expression as Node, types));
    default:
      return null;
  }
}

/** An int literal written in decimal (`0x10.0` is no float). */
function isDecimal(node: Node): boolean {
  return node.type === "int_constant" && /^\d+$/.test(String(node.token));
}

/** The type of a vector's component or swizzle (`v.xy`, `v[1]`), or null. */
function selectedType(node: Node, base: string | null): string | null {
  const vector = /^([iu]?)vec\d?$/.exec(base ?? "") ?? (base === "float" ? ["", ""] : null);
  if (!vector) return null;
  const scalar = ({ i: "int", u: "uint" } as Record<string, string>)[vector[1]!] ?? "float";
  const selection = node.postfix as Node;
  if (selection.type === "quantifier") return scalar;
  if (selection.type !== "field_selection") return null;
  const width = String((selection.selection as Node).identifier).length;
  return width === 1 ? scalar : `${vector[1]}vec${width}`;
}

function isFloat(type: string | null | undefined): boolean {
  return type === "float" || /^(?:vec|mat)/.test(type ?? "");
}

function specifierToken(node: unknown): string | null {
  const specifier = (node as { specifier?: { specifier?: { token?: string } } } | undefined)
    ?.specifier?.specifier;
  return specifier?.token ?? null;
}

function literal(node: unknown): string {
  return (node as { literal?: string } | undefined)?.literal ?? "";
}

function start(node: unknown): number {
  const located = node as Node | undefined;
  // A binary expression has no location of its own: its left operand's start is its own.
  if (located?.type === "binary") return start(located.left);
  return located?.location?.start.offset ?? -1;
}

/** The offset just after an expression's last character (no space after it), or -1. */
function endOf(node: Node): number {
  if (node.type === "int_constant") return start(node) + String(node.token).length;
  if (node.type === "identifier") return start(node) + String(node.identifier).length;
  if (node.type === "function_call" || node.type === "group") {
    const rp = start(node.rp);
    return rp >= 0 ? rp + 1 : -1;
  }
  if (node.type === "binary") return endOf(node.right as Node);
  const selection = node.postfix as Node | undefined;
  if (node.type === "postfix" && selection?.type === "quantifier") return start(selection.rb) + 1;
  if (node.type === "postfix" && selection?.type === "field_selection") {
    return endOf(selection.selection as Node);
  }
  return -1;
}

/** Calls `visit` on every node of `node`'s tree. */
function walk(node: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  visit(node as Node);
  for (const [key, value] of Object.entries(node)) {
    if (key !== "location" && typeof value === "object") walk(value, visit);
  }
}

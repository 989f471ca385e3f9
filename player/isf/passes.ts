/**
 * ISF's `PASSES`: each pass renders into its `TARGET` (an image later passes
 * read by name), sized by its `WIDTH` and `HEIGHT`, expressions of `$WIDTH`,
 * `$HEIGHT` (the size asked of the shader) and `$<input>` (an input's value):
 * `"floor($WIDTH/4.0)"` (`size_expression.ts`).
 * @module
 */
import { ISF_MAX_PASSES, ISF_MAX_TARGET_SIDE } from "../../protocol/output.ts";
import type { IsfHeader, IsfInput } from "./header.ts";
import { evaluateExpression, expressionProblem } from "./size_expression.ts";

/**
 * The largest side of a pass's target, in pixels: a larger `WIDTH` or
 * `HEIGHT` (for 1920 x 1080 and the inputs' defaults) is refused; when drawn,
 * a side is also kept to twice the render's (the page also keeps to its GL's limit).
 */
export const MAX_TARGET_SIDE = ISF_MAX_TARGET_SIDE;
/** The most passes a shader has; ISF-Files' multi-pass shaders have at most 10. */
export const MAX_PASSES = ISF_MAX_PASSES;
/**
 * The texels of one program's targets (a persistent target counts twice: the
 * page keeps two textures of it): 20 images of 1920 x 1080, a quarter more
 * than ISF-Files' largest take at 1080p (Micro Buffer, Time Glitch RGB: 8
 * persistent targets at the render size and small ones); 166 MB at 8 bits,
 * 664 MB with 32-bit float texels.
 */
export const TEXEL_BUDGET = 20 * 1920 * 1080;

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
      const problem = sizeProblem(expression, readable, values);
      if (problem) at(key, problem);
    }
  }
  return problems;
}

/** The render a program's targets are sized for, and its inputs' values by name. */
export interface PassSizeScope {
  /** The inputs' uniform values, for `$<input>`. */
  readonly values: Readonly<Record<string, number>>;
  /** The render's size, for `$WIDTH` and `$HEIGHT`. */
  readonly width: number;
  readonly height: number;
}

/**
 * The size in pixels of each pass's target for a render of `width` x
 * `height` with the inputs at `values`: its expressions' values rounded, at
 * least 1 and at most twice the render's side and MAX_TARGET_SIDE; the
 * render size where there is no expression (or no target). When the targets
 * take more than TEXEL_BUDGET, all are scaled alike to fit it.
 */
export function passSizes(header: IsfHeader, at: PassSizeScope): Array<[number, number]> {
  const { width, height } = at;
  const scope = { ...scoped(at.values), $WIDTH: width, $HEIGHT: height };
  const side = (expression: string | number | undefined, render: number) => {
    if (expression === undefined) return render;
    const value = typeof expression === "number"
      ? expression
      : evaluateExpression(expression, scope);
    if (!Number.isFinite(value)) return render;
    return Math.min(MAX_TARGET_SIDE, 2 * render, Math.max(1, Math.round(value)));
  };
  const sizes = header.PASSES.map((p): [number, number] =>
    p.TARGET ? [side(p.WIDTH, width), side(p.HEIGHT, height)] : [width, height]
  );
  const texels = header.PASSES.reduce((sum, p, i) => {
    const [w, h] = sizes[i]!;
    return p.TARGET ? sum + w * h * (isOn(p.PERSISTENT) ? 2 : 1) : sum;
  }, 0);
  if (texels <= TEXEL_BUDGET) return sizes;
  const k = Math.sqrt(TEXEL_BUDGET / texels);
  const fit = (s: number) => Math.max(1, Math.floor(s * k));
  return sizes.map(([w, h], i) => header.PASSES[i]!.TARGET ? [fit(w), fit(h)] : [w, h]);
}

/** What is wrong with a `WIDTH` or `HEIGHT`, for 1920 x 1080 and the inputs' defaults. */
function sizeProblem(
  size: string | number,
  readable: ReadonlySet<string>,
  defaults: Readonly<Record<string, number>>,
): string | null {
  const over = `over ${MAX_TARGET_SIDE} pixels`;
  if (typeof size === "number") {
    if (size > MAX_TARGET_SIDE) return `the size ${size} is ${over}`;
    return size >= 1 ? null : `the size ${size} is below 1 pixel`;
  }
  const scope = { ...scoped(defaults), $WIDTH: 1920, $HEIGHT: 1080 };
  const problem = expressionProblem(size, readable, scope);
  const defaulted = "for 1920 x 1080 and the inputs' defaults";
  if (problem) return problem.endsWith("gives no number") ? `${problem} ${defaulted}` : problem;
  const value = Math.round(evaluateExpression(size, scope));
  return value > MAX_TARGET_SIDE ? `"${size}" gives ${value} pixels ${defaulted}, ${over}` : null;
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

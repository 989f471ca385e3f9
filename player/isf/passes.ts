/**
 * ISF's `PASSES`: each pass renders into its `TARGET` (an image later passes
 * read by name), sized by its `WIDTH` and `HEIGHT`, expressions of `$WIDTH`,
 * `$HEIGHT` (the size asked of the shader) and `$<input>` (an input's value):
 * `"floor($WIDTH/4.0)"` (`size_expression.ts`).
 * @module
 */
import type { IsfHeader, IsfInput } from "./header.ts";
import { evaluateExpression, expressionProblem } from "./size_expression.ts";

/** The largest side of a pass's target, in pixels (the page also keeps to its GL's limit). */
export const MAX_TARGET_SIDE = 8192;

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
    const value = typeof expression === "number"
      ? expression
      : evaluateExpression(expression, scope);
    if (!Number.isFinite(value)) return fallback;
    return Math.min(MAX_TARGET_SIDE, Math.max(1, Math.round(value)));
  };
  return header.PASSES.map((p) =>
    p.TARGET ? [side(p.WIDTH, width), side(p.HEIGHT, height)] : [width, height]
  );
}

/** What is wrong with a `WIDTH` or `HEIGHT`, for 1920 x 1080 and the inputs' defaults. */
function sizeProblem(
  size: string | number,
  readable: ReadonlySet<string>,
  defaults: Readonly<Record<string, number>>,
): string | null {
  if (typeof size === "number") return size >= 1 ? null : `the size ${size} is below 1 pixel`;
  const scope = { ...scoped(defaults), $WIDTH: 1920, $HEIGHT: 1080 };
  const problem = expressionProblem(size, readable, scope);
  return problem?.endsWith("gives no number")
    ? `${problem} for 1920 x 1080 and the inputs' defaults`
    : problem;
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

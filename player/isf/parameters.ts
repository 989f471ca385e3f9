/**
 * How an ISF shader's inputs become a preset's parameters, and how a
 * preset's parameter values become the shader's uniform values.
 *
 * | ISF `TYPE` | parameter(s) | uniform |
 * | --- | --- | --- |
 * | `float` | `number` (MIN, MAX, DEFAULT) | `float` |
 * | `long` with `VALUES` | `enum` (LABELS, or the values as text) | `int`: the chosen value |
 * | `long` without `VALUES` | `number` (MIN, MAX, DEFAULT) | `int`: rounded |
 * | `bool`, `event` | `boolean` | `bool` |
 * | `color` | `color` `#rrggbb` (alpha from DEFAULT) | `vec4` |
 * | `point2D` | two `number`s, `<NAME>_x` and `<NAME>_y` | `vec2` |
 * | `image` (`inputImage`), `audio`, `audioFFT` | none: the layer's picture, the waveform, the spectrum | `sampler2D` |
 * @module
 */
import type { PresetParameter } from "../../protocol/model.ts";
import type { IsfInput } from "./header.ts";

type ParamValue = PresetParameter["default"];

/** A uniform's GLSL type and value, as the renderer sets it. */
export interface UniformValue {
  readonly name: string;
  readonly type: "float" | "int" | "bool" | "vec2" | "vec4";
  readonly value: number | readonly number[];
}

/** The GLSL type of an input's uniform. */
export function uniformType(input: IsfInput): string {
  switch (input.TYPE) {
    case "float":
      return "float";
    case "long":
      return "int";
    case "bool":
    case "event":
      return "bool";
    case "color":
      return "vec4";
    case "point2D":
      return "vec2";
    default:
      return "sampler2D";
  }
}

/** What is wrong with one input's declaration, beyond its JSON shape (null when fine). */
export function inputProblem(input: IsfInput): string | null {
  const { MIN, MAX, DEFAULT } = input;
  switch (input.TYPE) {
    case "float":
      if (!isNum(MIN, true) || !isNum(MAX, true) || !isNum(DEFAULT, true)) {
        return `a float input's MIN, MAX and DEFAULT must be numbers`;
      }
      return rangeProblem(MIN, MAX);
    case "long":
      if (input.VALUES) {
        if (input.VALUES.length === 0) return "VALUES must not be empty";
        if (input.LABELS && input.LABELS.length !== input.VALUES.length) {
          return `LABELS has ${input.LABELS.length} entries and VALUES ${input.VALUES.length}`;
        }
        if (DEFAULT !== undefined && !input.VALUES.includes(DEFAULT as number)) {
          return `DEFAULT ${JSON.stringify(DEFAULT)} is not one of VALUES`;
        }
        return null;
      }
      if (!isNum(MIN, true) || !isNum(MAX, true) || !isNum(DEFAULT, true)) {
        return "a long input needs VALUES, or numbers for MIN, MAX and DEFAULT";
      }
      return rangeProblem(MIN, MAX);
    case "bool":
    case "event":
      return DEFAULT === undefined || typeof DEFAULT === "boolean" || DEFAULT === 0 ||
          DEFAULT === 1
        ? null
        : "a bool input's DEFAULT must be true, false, 0 or 1";
    case "color":
      return DEFAULT === undefined || isVector(DEFAULT, [3, 4], true)
        ? null
        : "a color input's DEFAULT must be [r, g, b] or [r, g, b, a] between 0 and 1";
    case "point2D":
      for (const [key, value] of [["DEFAULT", DEFAULT], ["MIN", MIN], ["MAX", MAX]] as const) {
        if (value !== undefined && !isVector(value, [2], false)) return `${key} must be [x, y]`;
      }
      return null;
    default:
      return null;
  }
}

/** The preset parameters an input exposes (none for pictures and audio). */
export function inputParameters(input: IsfInput): PresetParameter[] {
  const { NAME: name, MIN, MAX, DEFAULT } = input;
  switch (input.TYPE) {
    case "float":
      return [numberParameter(name, MIN, MAX, DEFAULT, 0)];
    case "long": {
      if (!input.VALUES) return [numberParameter(name, MIN, MAX, DEFAULT, 0)];
      const options = longOptions(input);
      const index = Math.max(0, input.VALUES.indexOf(DEFAULT as number));
      return [{ name, type: "enum", options, default: options[index] ?? "" }];
    }
    case "bool":
    case "event":
      return [{ name, type: "boolean", default: DEFAULT === true || DEFAULT === 1 }];
    case "color":
      return [{ name, type: "color", default: hexColor(vector(DEFAULT, [1, 1, 1, 1])) }];
    case "point2D": {
      const at = vector(DEFAULT, [0, 0]);
      const min = Array.isArray(MIN) ? MIN : undefined;
      const max = Array.isArray(MAX) ? MAX : undefined;
      return ["x", "y"].map((axis, i) =>
        numberParameter(`${name}_${axis}`, min?.[i], max?.[i], at[i], 0)
      );
    }
    default:
      return [];
  }
}

/** The uniform of `input` for a preset's parameter `values` (its defaults where missing). */
export function inputUniform(
  input: IsfInput,
  values: Readonly<Record<string, ParamValue>>,
): UniformValue | null {
  const [first, second] = inputParameters(input);
  const valueOf = (p: PresetParameter | undefined) => p ? values[p.name] ?? p.default : 0;
  const name = input.NAME;
  switch (input.TYPE) {
    case "float":
      return { name, type: "float", value: Number(valueOf(first)) };
    case "long": {
      const chosen = valueOf(first);
      if (!input.VALUES) return { name, type: "int", value: Math.round(Number(chosen)) };
      const index = Math.max(0, longOptions(input).indexOf(String(chosen)));
      return { name, type: "int", value: input.VALUES[index] ?? 0 };
    }
    case "bool":
    case "event":
      return { name, type: "bool", value: valueOf(first) === true ? 1 : 0 };
    case "color": {
      const alpha = vector(input.DEFAULT, [1, 1, 1, 1])[3] ?? 1;
      return { name, type: "vec4", value: [...rgb(String(valueOf(first))), alpha] };
    }
    case "point2D":
      return { name, type: "vec2", value: [Number(valueOf(first)), Number(valueOf(second))] };
    default:
      return null;
  }
}

function longOptions(input: IsfInput): string[] {
  return input.LABELS ?? (input.VALUES ?? []).map(String);
}

function numberParameter(
  name: string,
  min: unknown,
  max: unknown,
  fallback: unknown,
  zero: number,
): PresetParameter {
  const lo = typeof min === "number" ? min : undefined;
  const hi = typeof max === "number" ? max : undefined;
  const value = typeof fallback === "number" ? clampDefault(fallback, lo, hi) : lo ?? zero;
  return {
    name,
    type: "number",
    ...(lo === undefined ? {} : { min: lo }),
    ...(hi === undefined ? {} : { max: hi }),
    default: value,
  };
}

function rangeProblem(min?: number, max?: number): string | null {
  return min !== undefined && max !== undefined && min > max
    ? `MIN ${min} is above MAX ${max}`
    : null;
}

/**
 * What is taken of one input's declaration but changed, as other ISF hosts change it (null when
 * nothing is): a number's `DEFAULT` outside `MIN` and `MAX` is clamped into them.
 */
export function inputWarning(input: IsfInput): string | null {
  const { MIN, MAX, DEFAULT, TYPE, VALUES } = input;
  if ((TYPE !== "float" && TYPE !== "long") || VALUES || typeof DEFAULT !== "number") return null;
  const min = typeof MIN === "number" ? MIN : undefined;
  const max = typeof MAX === "number" ? MAX : undefined;
  const clamped = clampDefault(DEFAULT, min, max);
  if (clamped === DEFAULT) return null;
  const side = DEFAULT < clamped ? `below MIN ${min}` : `above MAX ${max}`;
  return `DEFAULT ${DEFAULT} is ${side}: clamped to ${clamped}, as other ISF hosts do`;
}

/** `value` within `min` and `max` (either may be absent; MIN above MAX is refused first). */
function clampDefault(value: number, min?: number, max?: number): number {
  if (min !== undefined && value < min) return min;
  if (max !== undefined && value > max) return max;
  return value;
}

function isNum(value: unknown, isOptional: boolean): value is number | undefined {
  return (isOptional && value === undefined) || typeof value === "number";
}

function isVector(value: unknown, lengths: number[], isUnit: boolean): boolean {
  return Array.isArray(value) && lengths.includes(value.length) &&
    value.every((n) => typeof n === "number" && (!isUnit || (n >= 0 && n <= 1)));
}

function vector(value: unknown, fallback: number[]): number[] {
  if (!Array.isArray(value)) return fallback;
  return fallback.map((f, i) => typeof value[i] === "number" ? value[i] : f);
}

function hexColor([r = 1, g = 1, b = 1]: number[]): string {
  const byte = (n: number) => Math.round(n * 255).toString(16).padStart(2, "0");
  return `#${byte(r)}${byte(g)}${byte(b)}`;
}

function rgb(hex: string): number[] {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!match) return [1, 1, 1];
  return match.slice(1).map((h) => parseInt(h, 16) / 255);
}

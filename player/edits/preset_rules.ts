/**
 * The rules a preset and the parameter values given to its instances must
 * follow; `preset.validate` reports them, `preset.add` and `preset.update`
 * refuse to write a preset that breaks one.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { type Preset, PresetKind, type PresetParameter } from "../../protocol/model.ts";
import { ISF_PRESET_TYPE } from "../../protocol/edits/presets.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { Refusal } from "../errors.ts";
import {
  describeProblem,
  hasVertexCode,
  ISF_CHECKS,
  type IsfApartOptions,
  IsfCheckStalled,
  type IsfProblem,
  parseIsfApart,
} from "../isf/mod.ts";
import type { ParsedEdit } from "./parse.ts";

const COLOR = /^#[0-9A-Fa-f]{6}$/;

/** What is wrong with one value for `parameter` (null when it fits). */
export function valueProblem(parameter: PresetParameter, value: unknown): string | null {
  const { name } = parameter;
  switch (parameter.type) {
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return `"${name}" must be a number`;
      if (parameter.min !== undefined && value < parameter.min) {
        return `"${name}" must be at least ${parameter.min}`;
      }
      if (parameter.max !== undefined && value > parameter.max) {
        return `"${name}" must be at most ${parameter.max}`;
      }
      return null;
    case "boolean":
      return typeof value === "boolean" ? null : `"${name}" must be true or false`;
    case "color":
      return typeof value === "string" && COLOR.test(value)
        ? null
        : `"${name}" must be a color like #ff8800`;
    case "enum":
      return typeof value === "string" && (parameter.options ?? []).includes(value)
        ? null
        : `"${name}" must be one of ${(parameter.options ?? []).join(", ")}`;
  }
}

/** Every problem of a preset definition against the others of the store (empty when valid). */
export function presetProblems(
  preset: Pick<Preset, "id" | "kind" | "name" | "type" | "parameters">,
  others: readonly Preset[],
): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const [i, p] of preset.parameters.entries()) {
    const at = `parameters.${i}`;
    if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(p.name)) {
      problems.push(`${at}.name: "${p.name}" must start with a letter (letters, digits, _)`);
    }
    if (names.has(p.name)) problems.push(`${at}.name: "${p.name}" appears twice`);
    names.add(p.name);
    if (p.type === "number" && p.min !== undefined && p.max !== undefined && p.min > p.max) {
      problems.push(`${at}: min ${p.min} is above max ${p.max}`);
    }
    if (p.type === "enum" && !(p.options?.length)) {
      problems.push(`${at}.options: must not be empty`);
    }
    const problem = valueProblem(p, p.default);
    if (problem) problems.push(`${at}.default: ${problem}`);
  }
  const clash = others.find((o) =>
    o.id !== preset.id && o.kind === preset.kind &&
    o.name.toLowerCase() === preset.name.toLowerCase()
  );
  if (clash) problems.push(`name: a ${preset.kind} preset named "${clash.name}" exists`);
  return problems;
}

/** Problems of parameter values given to an instance of `preset`. */
export function paramProblems(preset: Preset, params: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    const parameter = preset.parameters.find((p) => p.name === name);
    if (!parameter) {
      problems.push(
        `"${name}" is not a parameter of preset "${preset.id}" (it has ${
          preset.parameters.map((p) => p.name).join(", ") || "none"
        })`,
      );
      continue;
    }
    const problem = valueProblem(parameter, value);
    if (problem) problems.push(problem);
  }
  return problems;
}

/** What an isf preset's code makes of it: the parameters its header declares, or why not. */
export interface IsfCheck {
  /** The header's INPUTS as parameters (empty when the code has problems). */
  readonly parameters: PresetParameter[];
  /** Problems of the code, at lines and columns of the code. */
  readonly codeProblems: IsfProblem[];
  /** Given parameters that are not the header's (null when none were given, or they are). */
  readonly parametersProblem: string | null;
  /** What the code had taken but changed (a DEFAULT clamped), at lines and columns of the code. */
  readonly warnings?: IsfProblem[];
}

/**
 * Checks the code of a preset of `type` "isf" (null for any other type, whose
 * code is text), off the player's thread (`parseIsfApart`): its parameters are
 * those of its header's INPUTS; `given` parameters, when not empty, must be
 * exactly those. The verdict is the bounded check's alone, the same on any
 * machine at any load, output or none: the output's GL compiles the code as it
 * draws it, and a refusal there is the preset's fault on the output (logged at
 * the user's line; the last program that compiled goes on drawing).
 * `apart` says how the check runs (tests: a clock, a stand-in worker); without it the
 * check started for it ahead of its turn is taken (`ISF_CHECKS`).
 * @throws {Refusal} UNAVAILABLE (`data.reason` CHECK_STALLED) when the check made no
 *   progress: no verdict, the edit can be sent again
 */
export async function checkIsfPreset(
  preset: Pick<Preset, "kind" | "type" | "code" | "vertexCode">,
  given: readonly PresetParameter[] | undefined,
  apart: IsfApartOptions = {},
): Promise<IsfCheck | null> {
  if (preset.type !== ISF_PRESET_TYPE) return null;
  // A blank vertex shader is none (the default quad), as the check takes it.
  const vertexCode = hasVertexCode(preset.vertexCode) ? preset.vertexCode : undefined;
  const checked = Object.keys(apart).length === 0
    ? ISF_CHECKS.take(preset.code, preset.kind, vertexCode ? { vertexCode } : {})
    : parseIsfApart(preset.code, preset.kind, { ...apart, ...(vertexCode ? { vertexCode } : {}) });
  const result = await checked.catch((error) => {
    if (!(error instanceof IsfCheckStalled)) throw error;
    throw new Refusal(error.message, RpcErrorCode.UNAVAILABLE, { reason: error.code });
  });
  if (!result.ok) return { parameters: [], codeProblems: result.problems, parametersProblem: null };
  const { parameters } = result.program;
  const isSame = isDeepStrictEqual(given?.map(comparable), parameters.map(comparable));
  const parametersProblem = !given?.length || isSame
    ? null
    : `an isf preset's parameters come from its header's INPUTS (${
      parameters.map((p) => p.name).join(", ") || "none"
    }): leave them out, or give exactly those`;
  return { parameters, codeProblems: [], parametersProblem, warnings: result.program.warnings };
}

/** The warnings of an `IsfCheck` as `preset.validate` lists them (`code: line 11, ...`). */
export function isfWarningTexts(check: IsfCheck | null): string[] {
  return (check?.warnings ?? []).map((p) => `code: ${describeProblem(p)}`);
}

/** The edits whose params carry code the bounded ISF check reads. */
const CODE_EDITS = new Set(["preset.add", "preset.update", "preset.validate"]);

/**
 * Starts the checks of the ISF code `edits` carry (`ISF_CHECKS`), so their verdicts are ready
 * when the edits' turn comes: the checks run beside the player's order, not in it. A
 * `preset.update` is checked as its turn will check it: its preset in `presets` (the user
 * presets now) with the code, vertex shader and type it gives, so one that gives only `code`
 * or only `vertexCode` is checked with the other it keeps. Null when none carries ISF code.
 * Resolves when all are done, whatever their verdict.
 */
export function checkIsfCodeBeside(
  edits: readonly ParsedEdit[],
  presets: readonly Preset[],
): Promise<void> | null {
  const checks = edits.flatMap(({ spec, params }) => {
    if (!CODE_EDITS.has(spec.name)) return [];
    const kind = PresetKind.safeParse(params.kind);
    if (!kind.success) return [];
    const stored = spec.name === "preset.update"
      ? presets.find((p) => p.id === params.presetID && p.kind === kind.data)
      : undefined;
    if (spec.name === "preset.update" && !stored) return [];
    const { code = stored?.code, type = stored?.type } = params;
    const vertexCode = params.vertexCode ?? stored?.vertexCode;
    if (type !== ISF_PRESET_TYPE || typeof code !== "string") return [];
    const vertex = typeof vertexCode === "string" && hasVertexCode(vertexCode)
      ? { vertexCode }
      : {};
    return [ISF_CHECKS.start(code, kind.data, vertex)];
  });
  return checks.length === 0 ? null : Promise.all(checks).then(() => {});
}

/** The problems of an `IsfCheck` as `preset.validate` lists them. */
export function isfProblemTexts(check: IsfCheck): string[] {
  return [
    ...check.codeProblems.map((p) => `${p.field ?? "code"}: ${describeProblem(p)}`),
    ...(check.parametersProblem ? [`parameters: ${check.parametersProblem}`] : []),
  ];
}

function comparable(p: PresetParameter) {
  return {
    name: p.name,
    type: p.type,
    min: p.min,
    max: p.max,
    options: p.options,
    default: p.default,
  };
}

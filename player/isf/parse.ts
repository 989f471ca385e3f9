/**
 * `parseIsf` and what goes with it: the checks of an ISF shader, its
 * parameters and uniforms (the folder's entry, `mod.ts`, says what ISF is
 * here and why this code is our own).
 * @module
 */
import type { PresetParameter } from "../../protocol/model.ts";
import { headerOffset, type IsfHeader, parseHeader, splitHeader } from "./header.ts";
import { importedProblems, importedSamplers } from "./imported.ts";
import {
  fragmentSource,
  type GlslVersion,
  ISF_BUILT_INS,
  ISF_VERTEX_SHADER,
  ISF_VERTEX_SHADER_300,
} from "./glsl.ts";
import { checkGlsl } from "./glsl_check.ts";
import { withInsertions } from "./loop_cap.ts";
import { checkVertexCode, hasVertexCode } from "./vertex_check.ts";
import {
  boundProblem,
  ISF_CHECK_BOUNDS,
  type IsfCheckBounds,
  WorkBoundReached,
  WorkBudget,
} from "./bounds.ts";
import {
  inputParameters,
  inputProblem,
  inputUniform,
  inputWarning,
  type UniformValue,
} from "./parameters.ts";
import { describeProblem, type IsfProblem, problemAt } from "./problems.ts";
import { type IsfPassSpec, passProblems, passSpecs } from "./passes.ts";
import { isReservedName, reservedNameProblems } from "./reserved_names.ts";

/** A preset's kind, which decides what its shader must take. */
export type IsfKind = "effect" | "visualizer" | "transition" | "generator";

/** The image inputs of a transition: the outgoing picture and the incoming one. */
export const TRANSITION_IMAGES: readonly string[] = ["startImage", "endImage"];

/** A checked ISF shader, ready for a renderer to compile. */
export interface IsfProgram {
  readonly header: IsfHeader;
  /** The preset parameters its inputs expose, in header order. */
  readonly parameters: PresetParameter[];
  /** What was taken but changed, as other ISF hosts change it (a DEFAULT clamped), at its line. */
  readonly warnings: IsfProblem[];
  /** Picture inputs and pass targets, bound as textures. */
  readonly samplers: string[];
  readonly fragment: string;
  readonly vertex: string;
  /** Lines of declarations before the user's line 1 in `fragment`. */
  readonly lineOffset: number;
  /** Lines before the user's line 1 in `vertex`, when it is the preset's own (`vertexCode`). */
  readonly vertexLineOffset?: number;
  /** The GLSL version of both sources (`#version 300 es` in the code, else ES 1.00). */
  readonly version: GlslVersion;
  /** The header's PASSES, in order (empty: one pass to the output). */
  readonly passes: IsfPassSpec[];
  /**
   * ES 1.00 code compiled as GLSL ES 3.00 instead (`gl_FragColor` and
   * `texture2D` mapped), for a GL that refuses the ES 1.00 sources for ES
   * 1.00's loop and index limits; null for ES 3.00 code.
   */
  readonly lifted: { fragment: string; vertex: string; lineOffset: number } | null;
}

/** The result of `parseIsf`. */
export type IsfResult =
  | { readonly ok: true; readonly program: IsfProgram }
  | { readonly ok: false; readonly problems: IsfProblem[] };

/** How one check is bounded and followed. */
export interface IsfCheckOptions {
  /** Bounds in place of ISF_CHECK_BOUNDS' (a test's tiny budget). */
  readonly bounds?: Partial<IsfCheckBounds>;
  /** Hears the work done so far, every 1024 units (the check's worker reports it). */
  readonly onProgress?: (work: number) => void;
  /** The preset's own vertex shader (ISF's `.vs`), checked and compiled with the code. */
  readonly vertexCode?: string;
}

/**
 * Checks ISF `code` for a preset of `kind`, its work bounded by
 * ISF_CHECK_BOUNDS (`bounds.ts`): a check that reaches a bound is one problem
 * that names it, the same on any machine at any load. The program's sources
 * have every loop capped (`loop_cap.ts`): these are what the output draws.
 * @example
 * ```ts
 * const result = parseIsf(code, "effect");
 * if (!result.ok) console.log(result.problems.map(describeProblem));
 * ```
 */
export function parseIsf(code: string, kind: IsfKind, options: IsfCheckOptions = {}): IsfResult {
  const budget = new WorkBudget(options.bounds, options.onProgress);
  const tooLong = codeLengthRefusal(code, budget.bounds, options.vertexCode);
  if (tooLong) return tooLong;
  const result = prepareIsf(code, kind);
  if (!result.ok) return result;
  const { fragment, lineOffset, lifted } = result.program;
  const vertex = hasVertexCode(options.vertexCode)
    ? checkVertexCode(options.vertexCode, result.program, budget)
    : null;
  if (Array.isArray(vertex)) return { ok: false, problems: vertex };
  const stage = vertex ? { varyings: vertex.varyings } : {};
  const glsl = checkGlsl(fragment, lineOffset, budget, code, stage);
  if (glsl.problems.length > 0) return { ok: false, problems: glsl.problems };
  const caps = glsl.loopCaps;
  return {
    ok: true,
    program: {
      ...result.program,
      fragment: withInsertions(fragment, lineOffset, caps),
      ...(vertex ? { vertex: vertex.vertex, vertexLineOffset: vertex.lineOffset } : {}),
      lifted: lifted && {
        ...lifted,
        fragment: withInsertions(lifted.fragment, lifted.lineOffset, [...caps, ...glsl.lift]),
        ...(vertex?.lifted ? { vertex: vertex.lifted } : {}),
      },
    },
  };
}

/**
 * The refusal of code, or of its own vertex shader (`vertexCode`, its problem naming that
 * field), over the `codeCharacters` bound (the one bound measured without a parse: the
 * player answers it before it starts a check's process), or null.
 */
export function codeLengthRefusal(
  code: string,
  bounds: Partial<IsfCheckBounds> = {},
  vertexCode?: string,
): IsfResult | null {
  const { codeCharacters } = { ...ISF_CHECK_BOUNDS, ...bounds };
  const problem = () => boundProblem(new WorkBoundReached("codeCharacters", codeCharacters));
  if (code.length > codeCharacters) return { ok: false, problems: [problem()] };
  // The vertex shader's own bound, as its check (`checkVertexCode`) would say it.
  if (hasVertexCode(vertexCode) && vertexCode.length > codeCharacters) {
    return { ok: false, problems: [{ ...problem(), field: "vertexCode" }] };
  }
  return null;
}

/** What of the header's inputs is taken but changed (`inputWarning`), where `at` places it. */
function inputWarnings(
  header: IsfHeader,
  at: (path: (string | number)[], message: string) => IsfProblem,
): IsfProblem[] {
  return header.INPUTS.flatMap((input, i) => {
    const warning = inputWarning(input);
    return warning ? [at(["INPUTS", i], `INPUTS.${i}: ${warning}`)] : [];
  });
}

/**
 * `parseIsf` without its GLSL parse: the header's checks and the sources, in
 * well under a millisecond, for what needs the header only. Its sources'
 * loops are not capped: the output draws `parseIsf`'s.
 */
export function prepareIsf(code: string, kind: IsfKind): IsfResult {
  const split = splitHeader(code);
  if (!("json" in split)) return { ok: false, problems: [split] };
  const header = parseHeader(code, split);
  if (Array.isArray(header)) return { ok: false, problems: header };
  const at = (path: (string | number)[], message: string) =>
    problemAt(code, headerOffset(split, path), message);
  const problems: IsfProblem[] = [];
  const names = new Set<string>();
  for (const [i, input] of header.INPUTS.entries()) {
    const problem = inputProblem(input) ??
      (ISF_BUILT_INS.includes(input.NAME) || isReservedName(input.NAME)
        ? `"${input.NAME}" is a name ISF declares`
        : null) ??
      (names.has(input.NAME) ? `"${input.NAME}" is declared twice` : null) ??
      (input.TYPE === "image" && !imageAllowed(input.NAME, kind)
        ? `"${input.NAME}" is a transition's picture: add the preset with kind "transition" (with startImage, endImage and a float progress), or rename the input`
        : null);
    if (problem) problems.push(at(["INPUTS", i], `INPUTS.${i}: ${problem}`));
    names.add(input.NAME);
  }
  const named = [...passProblems(header, ISF_BUILT_INS), ...importedProblems(header, names)];
  for (const { path, message } of named) problems.push(at(path, message));
  const kindProblem = kindMismatch(header, kind);
  if (kindProblem) problems.push(at(["INPUTS"], kindProblem));
  if (problems.length > 0) return { ok: false, problems };
  const reserved = reservedNameProblems(
    code.slice(0, split.end).replace(/[^\n]/g, " ") +
      code.slice(split.end),
  );
  if (reserved.length > 0) return { ok: false, problems: reserved };
  const samplers = [
    ...header.INPUTS.filter((i) => ["image", "audio", "audioFFT"].includes(i.TYPE)).map((i) =>
      i.NAME
    ),
    ...header.PASSES.flatMap((p) => p.TARGET ? [p.TARGET] : []),
    ...importedSamplers(header),
  ];
  const fragment = fragmentSource(code, split.end, header.INPUTS, samplers);
  if (Array.isArray(fragment)) return { ok: false, problems: fragment };
  return {
    ok: true,
    program: {
      header,
      parameters: header.INPUTS.flatMap(inputParameters),
      warnings: inputWarnings(header, at),
      samplers,
      fragment: fragment.source,
      vertex: fragment.version === "300 es" ? ISF_VERTEX_SHADER_300 : ISF_VERTEX_SHADER,
      lineOffset: fragment.lineOffset,
      version: fragment.version,
      passes: passSpecs(header),
      lifted: fragment.lifted && {
        fragment: fragment.lifted.source,
        vertex: ISF_VERTEX_SHADER_300,
        lineOffset: fragment.lifted.lineOffset,
      },
    },
  };
}

/**
 * The preset parameters the header of `code` declares, without the checks of
 * `parseIsf` (no GLSL parse: cheap enough for code known to be good, such as
 * the built-in presets').
 * @throws {Error} when the header cannot be read
 */
export function isfHeaderParameters(code: string): PresetParameter[] {
  const split = splitHeader(code);
  const header = "json" in split ? parseHeader(code, split) : [split];
  if (Array.isArray(header)) throw new Error(header.map(describeProblem).join("; "));
  return header.INPUTS.flatMap(inputParameters);
}

/**
 * The kind a shader is written for: a transition when its header follows ISF's transition
 * rule (`startImage`, `endImage`, `progress`), a visualizer when its header declares an
 * audio input, a generator when it declares no image input, else an effect (also when the
 * header cannot be read: the checks of `parseIsf` then name the problem).
 */
export function isfKindOf(code: string): IsfKind {
  const split = splitHeader(code);
  const header = "json" in split ? parseHeader(code, split) : [];
  if (Array.isArray(header)) return "effect";
  if (isTransitionHeader(header)) return "transition";
  const isAudio = header.INPUTS.some((i) => i.TYPE === "audio" || i.TYPE === "audioFFT");
  if (isAudio) return "visualizer";
  return header.INPUTS.some((i) => i.TYPE === "image") ? "effect" : "generator";
}

/** The uniform values of `program` for a preset instance's parameter values. */
export function isfUniforms(
  program: IsfProgram,
  values: Readonly<Record<string, PresetParameter["default"]>>,
): UniformValue[] {
  return program.header.INPUTS.flatMap((input) => inputUniform(input, values) ?? []);
}

/**
 * An image input `name` a shader of `kind` may declare: any (an image input other than the
 * layer's `inputImage` is bound per Effect, "Several image inputs" in `docs/presets.md`); a
 * transition's `startImage` and `endImage` only in a transition.
 */
function imageAllowed(name: string, kind: IsfKind): boolean {
  return kind === "transition" || !TRANSITION_IMAGES.includes(name);
}

/** ISF's transition rule: image inputs `startImage` and `endImage`, a float `progress`. */
function isTransitionHeader(header: IsfHeader): boolean {
  const has = (name: string, type: string) =>
    header.INPUTS.some((i) => i.NAME === name && i.TYPE === type);
  return has("startImage", "image") && has("endImage", "image") && has("progress", "float");
}

function kindMismatch(header: IsfHeader, kind: IsfKind): string | null {
  const types = new Set(header.INPUTS.map((i) => i.TYPE));
  if (kind === "transition" && !isTransitionHeader(header)) {
    return `a transition's shader takes two pictures and a progress: declare {"NAME": "startImage", "TYPE": "image"}, {"NAME": "endImage", "TYPE": "image"} and {"NAME": "progress", "TYPE": "float"}`;
  }
  if (kind === "effect" && !types.has("image")) {
    return `an effect's shader takes the layer's picture: declare {"NAME": "inputImage", "TYPE": "image"}`;
  }
  if (kind === "generator" && types.has("image")) {
    return `a generator's shader draws without a picture: declare no input of TYPE "image" (an effect takes the layer's picture as inputImage)`;
  }
  return null;
}

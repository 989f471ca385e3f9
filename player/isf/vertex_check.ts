/**
 * A preset's own vertex shader (ISF's `.vs`, the preset's `vertexCode`) checked as its
 * fragment is (`glsl_check.ts`: syntax, undeclared names, loops capped, the work counted on
 * the same budget), at the `.vs`'s own lines, each problem naming `vertexCode`. What it
 * declares as varyings its fragment may read.
 * @module
 */
import type { WorkBudget } from "./bounds.ts";
import { type GlslVersion, vertexSource } from "./glsl.ts";
import type { IsfHeader } from "./header.ts";
import { checkGlsl } from "./glsl_check.ts";
import { withInsertions } from "./loop_cap.ts";
import type { IsfProblem } from "./problems.ts";

/** A vertex shader that passed: its sources (loops capped) and the varyings it sets. */
export interface CheckedVertex {
  readonly vertex: string;
  /** Lines of declarations before the user's line 1 in `vertex`. */
  readonly lineOffset: number;
  /** Its ES 3.00 source, for the lifted fragment; null when the fragment is ES 3.00. */
  readonly lifted: string | null;
  readonly varyings: ReadonlySet<string>;
}

/** Whether `vertexCode` is a vertex shader of its own (empty or blank: the default quad). */
export function hasVertexCode(vertexCode: string | undefined): vertexCode is string {
  return vertexCode !== undefined && vertexCode.trim() !== "";
}

/**
 * Checks `vertexCode` for the fragment `prepared` (its version, inputs and images), its work
 * counted on `budget`: its problems (each with `field: "vertexCode"`), or its sources. Its
 * length is bounded before (`codeLengthRefusal`).
 */
export function checkVertexCode(
  vertexCode: string,
  prepared: {
    readonly version: GlslVersion;
    readonly header: IsfHeader;
    readonly samplers: readonly string[];
  },
  budget: WorkBudget,
): CheckedVertex | IsfProblem[] {
  const named = (problems: IsfProblem[]) =>
    problems.map((p) => ({ ...p, field: "vertexCode" as const }));
  const built = vertexSource(vertexCode, prepared.version, {
    inputs: prepared.header.INPUTS,
    samplers: prepared.samplers,
  });
  if (Array.isArray(built)) return named(built);
  const glsl = checkGlsl(built.source, built.lineOffset, budget, vertexCode, { stage: "vertex" });
  if (glsl.problems.length > 0) return named(glsl.problems);
  const caps = glsl.loopCaps;
  return {
    vertex: withInsertions(built.source, built.lineOffset, caps),
    lineOffset: built.lineOffset,
    lifted: built.lifted && withInsertions(built.lifted.source, built.lifted.lineOffset, caps),
    varyings: new Set(glsl.varyings ?? []),
  };
}

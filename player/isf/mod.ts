/**
 * Interactive Shader Format (ISF 2.0) for Effect and Visualizer presets: a
 * GLSL fragment shader whose first comment is a JSON header declaring its
 * inputs (https://github.com/mrRay/ISF_Spec). `parseIsf` checks the header
 * and the use of the ISF functions, maps the inputs to the preset's
 * parameters, builds the sources the output's WebGL2 context compiles and
 * checks their GLSL without a GPU (syntax and undeclared names,
 * `glsl_check.ts`); compiling them (and mapping the GL log back with
 * `mapCompileLog`) is the renderer's part. A check is bounded by its work
 * and memory (`bounds.ts`), never by time; `parseIsfApart` runs it in a
 * process of its own, as the preset edits do.
 *
 * Own code rather than npm `interactive-shader-format`: that package's
 * parser (2.9.0, 2017) knows no `audio`/`audioFFT` inputs, expands the
 * `IMG_*` functions with regular expressions that break on nested calls,
 * and reports no line numbers.
 * @module
 */
export {
  type IsfCheckOptions,
  isfHeaderParameters,
  type IsfKind,
  isfKindOf,
  type IsfProgram,
  type IsfResult,
  isfUniforms,
  parseIsf,
  prepareIsf,
} from "./parse.ts";
export {
  ISF_CHECK_STALL_MS,
  type IsfApartOptions,
  IsfCheckStalled,
  parseIsfApart,
  tooLargeProblem,
} from "./apart.ts";
export { ISF_CHECK_BOUNDS, ISF_CHECK_HEAP_MB, type IsfCheckBounds, LOOP_CAP } from "./bounds.ts";
export { describeProblem, type IsfProblem } from "./problems.ts";
export { mapCompileLog } from "./glsl.ts";
export type { UniformValue } from "./parameters.ts";
export {
  type IsfPassSpec,
  MAX_PASSES,
  MAX_TARGET_SIDE,
  passSizes,
  type PassSizeScope,
  TEXEL_BUDGET,
} from "./passes.ts";
export type { GlslVersion } from "./glsl.ts";
export { withParameterDefault } from "./set_default.ts";
export { ISF_CHECKS, IsfCheckMemo } from "./check_memo.ts";
export { hasVertexCode } from "./vertex_check.ts";

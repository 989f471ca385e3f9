/**
 * Types, overloads and every other error a GL compiler reports, found by a real GLSL compiler
 * front end without a GPU: Khronos' glslang built to WASM (npm `@webgpu/glslang` 0.0.15, its
 * one-file build, whose WASM is inside its JS: no file is read, and `deno compile` embeds it).
 * That build compiles for Vulkan only, so the sources the output compiles are rewritten for it
 * (`glslangSource`) on the same lines: `#version 310 es` for `300 es`, each non-opaque uniform in a
 * block of its own, a binding for each sampler, a location for each `in` and `out`. ES 1.00 code
 * is compiled in its lifted ES 3.00 form (`glsl.ts`), which the output falls back to. The log is
 * mapped to the user's lines as the output's is (`mapCompileLog`).
 *
 * glslang's first compile in a process builds its tables of built-ins (about 0.7 s; 1 to 8 ms a
 * shader after it), so the player compiles in one long-lived process (`glsl_compiler.ts`).
 * @module
 */
import { mapCompileLog } from "./glsl.ts";
import type { IsfProblem } from "./problems.ts";

/** A shader's stage, as glslang takes it. */
export type GlslStage = "fragment" | "vertex";

/** glslang's compile of one source (a fragment's unless `stage` says): its log (empty when it compiled). */
export type GlslangCompile = (source: string, stage?: GlslStage) => string;

/** A declaration of non-opaque uniforms: `uniform [precision] type names;`. */
const UNIFORM = /\buniform(\s+)((?:(?:lowp|mediump|highp)\s+)?)(\w+)(\s+[^;{}()]+);/g;
/**
 * An `in` or `out` variable of the shader, or a `varying` (the lift defines it `in`), not a
 * parameter (the line has no bracket).
 */
const IN_OUT = /^([ \t]*)((?:(?:flat|smooth|centroid)\s+)*)(in|out|varying)(\s+[^;(){}]+;)/gm;

/** What ES 1.00 takes and ES 3.00 refuses, which the check of lifted code takes as GL ES 1.00 does. */
const ES_100_LENIENCY = "#extension GL_EXT_shader_non_constant_global_initializers : enable";

/**
 * `fragment` (GLSL ES 3.00, as the output compiles it) rewritten for glslang's Vulkan target on
 * the same lines: `#version 310 es`; each non-opaque uniform in a block of its own (`uniform
 * float amount;` -> `uniform isf_u3 { float amount; };`), each sampler given a binding, each
 * `in`, `out` and `varying` of the shader a location. Nothing else changes, so a problem keeps its line.
 * `isLifted` (ES 1.00 code in its lifted form): a global initialized from a uniform, which GL ES
 * 1.00 takes, is taken (the output compiles such code as ES 1.00).
 */
export function glslangSource(fragment: string, isLifted = false): string {
  if (isLifted) {
    fragment = fragment.replace(
      /^precision highp float;\nprecision highp int;$/m,
      `${ES_100_LENIENCY}\nprecision highp float; precision highp int;`,
    );
  }
  let blocks = 0;
  let bindings = 0;
  let locations = 0;
  return fragment
    .replace(/^([ \t]*#[ \t]*version[ \t]+)300([ \t]+es\b)/m, "$1310$2")
    .replace(UNIFORM, (whole, space: string, precision: string, type: string, names: string) => {
      if (/^(?:[iu]?sampler|image)/.test(type)) return `layout(binding=${bindings++}) ${whole}`;
      const block = blocks++;
      return `layout(binding=${block}) uniform${space}isf_u${block} { ${precision}${type}${names}; };`;
    })
    .replace(
      IN_OUT,
      (_whole, indent: string, interpolation: string, way: string, rest: string) => {
        const location = locations;
        locations += locationsOf(rest);
        return `${indent}layout(location=${location}) ${interpolation}${way}${rest}`;
      },
    );
}

/**
 * The locations a declaration (`vec2 a[5], b;`) takes: each name one, an array one an element, a
 * matrix one a column; an array whose size is no number, 16.
 */
function locationsOf(declaration: string): number {
  const columns = Number(/\bmat(\d)/.exec(declaration)?.[1] ?? 1);
  return declaration.split(",").reduce((sum, name) => {
    const size = /\[([^\]]*)\]/.exec(name)?.[1];
    const count = size === undefined ? 1 : /^\s*\d+\s*$/.test(size) ? Number(size) : 16;
    return sum + columns * count;
  }, 0);
}

/**
 * glslang's log of `source` (from `glslangSource`) as problems at the lines of `code`, the code
 * as the user wrote it, whose line 1 is line `lineOffset + 1` of the source: its errors only,
 * in GL's words (the layouts of the rewrite and glslang's storage words left out).
 */
export function typeProblems(log: string, code: string, lineOffset: number): IsfProblem[] {
  const errors = log.split("\n")
    .filter((line) => /^ERROR: \d+:\d+: /.test(line) && !/compilation terminated/.test(line))
    .map((line) =>
      line.replace(/layout\([^)]*\)\s*/g, "").replace(/' temp /g, "'").replace(/ {2,}/g, " ")
    );
  if (errors.length === 0) return [];
  return mapCompileLog(errors.join("\n"), code, lineOffset);
}

let loading: Promise<GlslangCompile> | null = null;

/**
 * glslang in this process, loaded once (its WASM compiled and instantiated: about 0.1 s; its
 * first compile builds its tables, about 0.7 s more). Its messages, which the build prints on the
 * console, are captured: the console's `log` and `warn` are routed to it while it loads (the build
 * binds them then) and go on to the console for everything else.
 */
export function loadGlslang(): Promise<GlslangCompile> {
  loading ??= load();
  return loading;
}

async function load(): Promise<GlslangCompile> {
  let heard: string[] | null = null;
  const [log, warn] = [console.log, console.warn];
  const route = (fallback: (...data: unknown[]) => void) => (...data: unknown[]) =>
    heard ? heard.push(data.join(" ")) : fallback(...data);
  console.log = route(log);
  console.warn = route(warn);
  let compiler: { compileGLSL(source: string, stage: GlslStage, debug: boolean): Uint32Array };
  try {
    const module = await import("@webgpu/glslang/dist/web-devel-onefile/glslang.js");
    compiler = await (module.default as unknown as () => Promise<typeof compiler>)();
  } finally {
    // Calls bound by glslang keep the routes; any later caller of the console gets its own.
    [console.log, console.warn] = [log, warn];
  }
  return (source, stage = "fragment") => {
    heard = [];
    try {
      compiler.compileGLSL(source, stage, false);
      return "";
    } catch (error) {
      return heard.join("\n") || String((error as Error)?.message ?? error);
    } finally {
      heard = null;
    }
  };
}

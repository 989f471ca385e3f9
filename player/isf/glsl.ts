/**
 * Turns an ISF shader's code into the GLSL sources a WebGL2 context compiles:
 * the declarations of the ISF built-ins and of each input, then the user's
 * code with its header blanked out (same lines and columns), and the `IMG_*`
 * functions expanded. A compiler's log is mapped back to the user's lines.
 *
 * Code is GLSL ES 1.00 as ISF files are written (WebGL2 takes ES 1.00 shaders
 * as they are, so `gl_FragColor` and `texture2D` of community shaders need no
 * rewriting), or GLSL ES 3.00 when it says `#version 300 es` before any code:
 * then the directive moves to the source's first line (its own line left
 * blank), the declarations are those of ES 3.00 (`in vec2
 * isf_FragNormCoord`), `IMG_*` expand to `texture()`, the vertex shader is ES
 * 3.00 too (WebGL links only shaders of one version), and the code declares
 * its own `out vec4`. Any other `#version` is refused at its line. ES 1.00
 * code also gets `lifted` ES 3.00 sources, which a renderer compiles when
 * its GL refuses the ES 1.00 ones (ES 1.00's limits on loops and indexes).
 * @module
 */
import type { IsfInput } from "./header.ts";
import { uniformType } from "./parameters.ts";
import { type IsfProblem, problemAt } from "./problems.ts";
import { expandImageFunctions } from "./image_functions.ts";
import { LOOP_COUNTER } from "./loop_cap.ts";

/** Names the ISF runtime declares; an input may not take one. */
export const ISF_BUILT_INS: readonly string[] = [
  "TIME",
  "TIMEDELTA",
  "RENDERSIZE",
  "PASSINDEX",
  "FRAMEINDEX",
  "DATE",
  "isf_FragNormCoord",
  "vv_FragNormCoord",
  LOOP_COUNTER,
];

/** The default vertex shader: a full-frame quad from `position` (-1..1). */
export const ISF_VERTEX_SHADER = `precision highp float;
attribute vec2 position;
varying vec2 isf_FragNormCoord;
void main() {
  gl_Position = vec4(position, 0.0, 1.0);
  isf_FragNormCoord = position * 0.5 + 0.5;
}
`;

/** The vertex shader of code in GLSL ES 3.00: the same quad. */
export const ISF_VERTEX_SHADER_300 = `#version 300 es
precision highp float;
in vec2 position;
out vec2 isf_FragNormCoord;
void main() {
  gl_Position = vec4(position, 0.0, 1.0);
  isf_FragNormCoord = position * 0.5 + 0.5;
}
`;

/** The GLSL versions ISF code is compiled as. */
export type GlslVersion = "100" | "300 es";

/** The fragment source, how many lines precede the user's first line, and its version. */
export interface FragmentSource {
  readonly source: string;
  readonly lineOffset: number;
  readonly version: GlslVersion;
  /**
   * ES 1.00 code as GLSL ES 3.00 (`gl_FragColor`, `texture2D` mapped by
   * `#define`), for a GL that refuses it as ES 1.00: ES 3.00 has no limits on
   * loops and indexes. Null for ES 3.00 code.
   */
  readonly lifted: { readonly source: string; readonly lineOffset: number } | null;
}

/** What maps ES 1.00's output and sampling to ES 3.00's, for `lifted` sources. */
const LIFT = [
  "out vec4 isf_FragColor;",
  "#define gl_FragColor isf_FragColor",
  "#define texture2D texture",
  "#define texture2DProj textureProj",
  "#define textureCube texture",
  // A varying a `.vs` sets, in ES 1.00 words (`vertexSource`).
  "#define varying in",
];

/**
 * The fragment shader for `code` whose header ends at `headerEnd`;
 * `samplers` are the picture inputs and pass targets.
 */
export function fragmentSource(
  code: string,
  headerEnd: number,
  inputs: readonly IsfInput[],
  samplers: readonly string[],
): FragmentSource | IsfProblem[] {
  const blanked = code.slice(0, headerEnd).replace(/[^\n]/g, " ") + code.slice(headerEnd);
  const versioned = versionOf(blanked);
  if (Array.isArray(versioned)) return versioned;
  const { version, text } = versioned;
  const isEs3 = version === "300 es";
  const declarations = (es3: boolean) => isfDeclarations(es3, "fragment", { inputs, samplers });
  const expanded = expandImageFunctions(text, new Set(samplers), isEs3 ? "texture" : "texture2D");
  if (Array.isArray(expanded)) return expanded;
  const withPrologue = (prologue: string[]) => ({
    source: `${prologue.join("\n")}\n${expanded.text}`,
    lineOffset: prologue.length,
  });
  if (isEs3) {
    return { ...withPrologue(["#version 300 es", ...declarations(true)]), version, lifted: null };
  }
  const lifted = withPrologue(["#version 300 es", ...declarations(true), ...LIFT]);
  return { ...withPrologue(declarations(false)), version, lifted };
}

/**
 * The GLSL version `code` (its header blanked) asks for with a `#version`
 * before any code, and the code with that line blanked; a `#version` other
 * than 100 or 300 es, or after code, is a problem at its line. A `#version`
 * in a comment is none.
 */
function versionOf(code: string): { version: GlslVersion; text: string } | IsfProblem[] {
  // Comments blanked in place (same offsets, same lines) before the directive is looked for.
  const bare = code.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (c) => c.replace(/[^\n]/g, " "));
  const directive = /^[ \t]*#[ \t]*version\b([^\n]*)$/m.exec(bare);
  if (!directive) return { version: "100", text: code };
  const at = directive.index + directive[0].indexOf("#");
  if (bare.slice(0, directive.index).trim() !== "") {
    return [problemAt(code, at, "#version must come before any code (just after the header)")];
  }
  const asked = directive[1]!.trim().replace(/\s+/g, " ");
  if (asked !== "100" && asked !== "300 es") {
    return [problemAt(
      code,
      at,
      `#version ${asked} is not supported: ISF code here is GLSL ES 1.00 (no #version, or #version 100) or GLSL ES 3.00 (#version 300 es)`,
    )];
  }
  const blank = directive[0].replace(/[^\n]/g, " ");
  const text = code.slice(0, directive.index) + blank + code.slice(directive.index + blank.length);
  return { version: asked, text };
}

/**
 * A WebGL compile log (ANGLE's `ERROR: 0:12: 'x' : undeclared identifier`)
 * as problems at the user's lines; the column is that of the quoted token
 * in the line when it is there.
 */
export function mapCompileLog(log: string, code: string, lineOffset: number): IsfProblem[] {
  const lines = code.split("\n");
  const problems: IsfProblem[] = [];
  for (const entry of log.split("\n")) {
    const match = /^(?:ERROR|WARNING): \d+:(\d+): (.*)$/.exec(entry.trim());
    if (!match || !entry.trim().startsWith("ERROR")) continue;
    const generated = Number(match[1]);
    const message = (match[2] ?? "").trim();
    const line = generated - lineOffset;
    if (line < 1) {
      problems.push({
        line: 1,
        column: 1,
        message: `in the declarations of the inputs: ${message}`,
      });
      continue;
    }
    const token = /'([^']+)'/.exec(message)?.[1];
    const at = token ? (lines[line - 1] ?? "").indexOf(token) : -1;
    problems.push({ line, column: at >= 0 ? at + 1 : 1, message });
  }
  if (problems.length === 0 && log.trim() !== "") {
    problems.push({ line: 1, column: 1, message: log.trim().split("\n")[0] ?? "" });
  }
  return problems;
}

/** What ISF declares in a vertex shader of its own, after the uniforms: the quad's init. */
const VERTEX_INIT = [
  "void isf_vertShaderInit() {",
  "  gl_Position = vec4(position, 0.0, 1.0);",
  "  isf_FragNormCoord = position * 0.5 + 0.5;",
  "}",
  "#define vv_vertShaderInit isf_vertShaderInit",
  "#define vv_FragNormCoord isf_FragNormCoord",
];

/**
 * What maps ES 1.00's vertex words to ES 3.00's, for `lifted` sources of a `.vs` (a lifted
 * fragment reads its varyings by `LIFT`'s `#define varying in`).
 */
const VERTEX_LIFT = [
  "#define attribute in",
  "#define varying out",
  "#define texture2D texture",
  "#define texture2DLod textureLod",
  "#define texture2DProj textureProj",
];

/** A vertex shader's source as the GL compiles it, and the lines before the user's line 1. */
export interface VertexSource {
  readonly source: string;
  readonly lineOffset: number;
  /** The ES 3.00 source of ES 1.00 code, compiled with the lifted fragment; null for ES 3.00. */
  readonly lifted: { readonly source: string; readonly lineOffset: number } | null;
}

/**
 * The vertex shader built from a preset's own `vertexCode` (ISF's `.vs`), as ISF hosts build
 * it: the uniforms the fragment has (the inputs', `RENDERSIZE`, `TIME`, `PASSINDEX`, the
 * images' `_<img>_imgSize`, ...), the quad's `position` attribute, `isf_FragNormCoord` as a
 * varying and `isf_vertShaderInit()`, which sets both, then the user's code, its `IMG_*`
 * calls expanded. It is of the fragment's `version` (WebGL links only shaders of one): a
 * `#version` that differs is a problem at its line.
 */
export function vertexSource(
  vertexCode: string,
  version: GlslVersion,
  header: { readonly inputs: readonly IsfInput[]; readonly samplers: readonly string[] },
): VertexSource | IsfProblem[] {
  const versioned = versionOf(vertexCode);
  if (Array.isArray(versioned)) return versioned;
  // The text differs from the code where a directive was blanked.
  if (versioned.text !== vertexCode && versioned.version !== version) {
    let at = 0;
    while (versioned.text[at] === vertexCode[at]) at++;
    return [problemAt(
      vertexCode,
      at,
      `#version ${versioned.version} is not the fragment shader's (${version}): WebGL links only shaders of one version`,
    )];
  }
  const isEs3 = version === "300 es";
  const samplers = new Set(header.samplers);
  const expanded = expandImageFunctions(versioned.text, samplers, isEs3 ? "texture" : "texture2D");
  if (Array.isArray(expanded)) return expanded;
  const withPrologue = (prologue: string[]) => ({
    source: `${prologue.join("\n")}\n${expanded.text}`,
    lineOffset: prologue.length,
  });
  const es3 = ["#version 300 es", ...isfDeclarations(true, "vertex", header)];
  if (isEs3) return { ...withPrologue(es3), lifted: null };
  return {
    ...withPrologue(isfDeclarations(false, "vertex", header)),
    lifted: withPrologue([...es3, ...VERTEX_LIFT]),
  };
}

/**
 * The declarations ISF gives a preset's shader of `stage` (ES 3.00's when `isEs3`): the
 * uniforms (`TIME`, `RENDERSIZE`, ..., the inputs' and the images'), the loops' counter,
 * `isf_FragNormCoord` between the stages; a vertex shader's `position` attribute and
 * `isf_vertShaderInit()` too.
 */
function isfDeclarations(
  isEs3: boolean,
  stage: "fragment" | "vertex",
  header: { readonly inputs: readonly IsfInput[]; readonly samplers: readonly string[] },
): string[] {
  const isVertex = stage === "vertex";
  const between = isEs3 ? (isVertex ? "out" : "in") : "varying";
  return [
    "precision highp float;",
    "precision highp int;",
    "uniform float TIME;",
    "uniform float TIMEDELTA;",
    "uniform vec2 RENDERSIZE;",
    "uniform int PASSINDEX;",
    "uniform int FRAMEINDEX;",
    "uniform vec4 DATE;",
    // Each invocation's own, from 0: the iterations its loops ran (`loop_cap.ts`).
    `int ${LOOP_COUNTER} = 0;`,
    ...(isVertex ? [isEs3 ? "in vec2 position;" : "attribute vec2 position;"] : []),
    `${between} vec2 isf_FragNormCoord;`,
    ...(isVertex ? [] : ["#define vv_FragNormCoord isf_FragNormCoord"]),
    ...header.inputs.filter((i) => uniformType(i) !== "sampler2D").map((i) =>
      `uniform ${uniformType(i)} ${i.NAME};`
    ),
    ...header.samplers.flatMap((name) => [
      `uniform sampler2D ${name};`,
      `uniform vec2 _${name}_imgSize;`,
      `uniform vec4 _${name}_imgRect;`,
      `uniform bool _${name}_flip;`,
    ]),
    ...(isVertex ? VERTEX_INIT : []),
  ];
}

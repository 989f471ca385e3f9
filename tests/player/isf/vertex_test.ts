import assert from "node:assert/strict";
import { parseIsf } from "../../../player/isf/mod.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

/** INVERT reading a varying its vertex shader sets. */
const SHIFTED = INVERT.replace("void main() {", "varying vec2 shifted;\nvoid main() {")
  .replace("IMG_THIS_PIXEL(inputImage)", "IMG_NORM_PIXEL(inputImage, shifted)");

/** The vertex shader of SHIFTED, as ISF files write one. */
const SHIFTED_VS = `varying vec2 shifted;
void main() {
  isf_vertShaderInit();
  shifted = isf_FragNormCoord + vec2(amount / RENDERSIZE.x, 0.0);
}
`;

function program(code: string, vertexCode?: string) {
  const result = parseIsf(code, "effect", vertexCode === undefined ? {} : { vertexCode });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.program;
}

function problems(code: string, vertexCode: string) {
  const result = parseIsf(code, "effect", { vertexCode });
  if (result.ok) throw new Error("expected problems");
  return result.problems;
}

Deno.test("parseIsf() builds a preset's own vertex shader with ISF's declarations, at its lines", () => {
  const p = program(SHIFTED, SHIFTED_VS);
  const lines = p.vertex.split("\n");
  const offset = p.vertexLineOffset!;
  assert.deepEqual(lines.slice(offset, offset + 4), SHIFTED_VS.split("\n").slice(0, 4));
  for (
    const declared of [
      "attribute vec2 position;",
      "varying vec2 isf_FragNormCoord;",
      "uniform float amount;",
      "uniform vec2 RENDERSIZE;",
      "uniform int PASSINDEX;",
      "uniform vec4 _inputImage_imgRect;",
      "void isf_vertShaderInit() {",
    ]
  ) assert.ok(lines.slice(0, offset).includes(declared), declared);
  assert.equal(p.version, "100");
  // Lifted with the fragment: ES 3.00, its varyings `out`.
  const lifted = p.lifted!.vertex;
  assert.ok(lifted.startsWith("#version 300 es\n"));
  assert.ok(lifted.includes("\nin vec2 position;\n"));
  assert.ok(lifted.includes("\n#define varying out\n"));
  assert.ok(p.lifted!.fragment.includes("\n#define varying in\n"));
});

Deno.test("parseIsf() without a vertex shader keeps the default quad", () => {
  const p = program(INVERT);
  assert.equal(p.vertexLineOffset, undefined);
  assert.match(p.vertex, /gl_Position = vec4\(position, 0\.0, 1\.0\);/);
  assert.deepEqual(program(INVERT, "  \n").vertex, p.vertex);
});

Deno.test("parseIsf() refuses a syntax error of the vertex shader at its own line, naming vertexCode", () => {
  const broken = SHIFTED_VS.replace("isf_vertShaderInit();", "isf_vertShaderInit()");
  assert.deepEqual(problems(SHIFTED, broken), [{
    line: 3,
    column: 23,
    message: "GLSL syntax: ';' expected at the end of the line",
    field: "vertexCode",
  }]);
  const undeclared = SHIFTED_VS.replace("amount /", "amountt /");
  assert.deepEqual(problems(SHIFTED, undeclared), [{
    line: 4,
    column: 38,
    message: "'amountt' : undeclared identifier",
    field: "vertexCode",
  }]);
});

Deno.test("parseIsf() takes the varyings the vertex shader sets, and refuses one it does not", () => {
  program(SHIFTED, SHIFTED_VS);
  const other = SHIFTED_VS.replaceAll("shifted", "moved");
  assert.deepEqual(problems(SHIFTED, other), [{
    line: 11,
    column: 14,
    message:
      "'shifted' : a varying the vertex shader (vertexCode) does not set: declare and set it there, or compute it in main() from isf_FragNormCoord",
  }]);
});

Deno.test("parseIsf() takes ES 3.00 code with an ES 3.00 vertex shader, and refuses versions apart", () => {
  const es3 = SHIFTED.replace("*/\n", "*/\n#version 300 es\nout vec4 fragColor;\n")
    .replace("varying vec2 shifted;", "in vec2 shifted;")
    .replace("gl_FragColor", "fragColor");
  const vs3 = `#version 300 es\n${SHIFTED_VS.replace("varying", "out")}`;
  const p = program(es3, vs3);
  assert.equal(p.version, "300 es");
  assert.ok(p.vertex.startsWith("#version 300 es\n"));
  assert.ok(p.vertex.includes("\nout vec2 isf_FragNormCoord;\n"));
  assert.equal(p.lifted, null);
  const [apart] = problems(SHIFTED, vs3);
  assert.equal(apart!.line, 1);
  assert.equal(apart!.field, "vertexCode");
  assert.match(apart!.message, /#version 300 es is not the fragment shader's \(100\)/);
});

Deno.test("parseIsf() caps the vertex shader's loops as the fragment's", () => {
  const looping = SHIFTED_VS.replace(
    "isf_vertShaderInit();",
    "isf_vertShaderInit();\n  for (int i = 0; i < 4; i++) { shifted.x += 0.0; }",
  );
  const p = program(SHIFTED, looping);
  assert.match(p.vertex, /for \(int i = 0; i < 4; i\+\+\) \{ if \(\+\+isf_loopIterations/);
});

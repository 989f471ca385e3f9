import assert from "node:assert/strict";
import { isfUniforms, parseIsf } from "../../../player/isf/mod.ts";
import { EVERY_INPUT, INVERT } from "../../../tools/testing/isf_shaders.ts";

function program(code: string, kind: "effect" | "visualizer" = "effect") {
  const result = parseIsf(code, kind);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.program;
}

function problems(code: string, kind: "effect" | "visualizer" = "effect") {
  const result = parseIsf(code, kind);
  if (result.ok) throw new Error("expected problems");
  return result.problems;
}

Deno.test("parseIsf() maps every ISF input type to preset parameters", () => {
  assert.deepEqual(program(EVERY_INPUT).parameters, [
    { name: "level", type: "number", min: 0, max: 2, default: 0.5 },
    { name: "flash", type: "boolean", default: false },
    { name: "invert", type: "boolean", default: true },
    { name: "mode", type: "enum", options: ["Add", "Multiply", "Screen"], default: "Multiply" },
    { name: "tint", type: "color", default: "#ff8000" },
    { name: "center_x", type: "number", min: 0, max: 1, default: 0.5 },
    { name: "center_y", type: "number", min: 0, max: 1, default: 0.5 },
  ]);
  assert.deepEqual(program(EVERY_INPUT).samplers, ["inputImage", "wave", "spectrum"]);
});

Deno.test("isfUniforms() turns parameter values into uniform values", () => {
  const uniforms = isfUniforms(program(EVERY_INPUT), { mode: "Screen", tint: "#000000" });
  assert.deepEqual(uniforms, [
    { name: "level", type: "float", value: 0.5 },
    { name: "flash", type: "bool", value: 0 },
    { name: "invert", type: "bool", value: 1 },
    { name: "mode", type: "int", value: 2 },
    { name: "tint", type: "vec4", value: [0, 0, 0, 1] },
    { name: "center", type: "vec2", value: [0.5, 0.5] },
  ]);
});

Deno.test("parseIsf() keeps the user's lines: line N of the code is lineOffset + N", () => {
  const p = program(INVERT);
  const lines = p.fragment.split("\n");
  const userLines = INVERT.split("\n");
  const mainLine = userLines.findIndex((l) => l.startsWith("void main"));
  assert.deepEqual(lines[p.lineOffset + mainLine], "void main() {");
  assert(lines[p.lineOffset + mainLine + 1]?.includes("texture2D(inputImage, isf_FragNormCoord)"));
});

Deno.test("parseIsf() expands nested IMG_ calls and ignores them in comments", () => {
  const code = INVERT.replace(
    "vec4 c = IMG_THIS_PIXEL(inputImage);",
    "vec4 c = IMG_NORM_PIXEL(inputImage, vec2(max(0.1, 0.2), 0.5)); // IMG_PIXEL(nothing)",
  );
  const fragment = program(code).fragment;
  assert(fragment.includes("texture2D(inputImage, vec2(max(0.1, 0.2), 0.5))"), fragment);
  assert(fragment.includes("// IMG_PIXEL(nothing)"));
});

Deno.test("parseIsf() names the line and column of a header that is not JSON", () => {
  const code = INVERT.replace('"ISFVSN": "2",', '"ISFVSN": "2" oops,');
  const [first] = problems(code);
  assert.deepEqual(first?.line, 4);
  assert.deepEqual(first?.column, 17);
  assert(first?.message.includes("not valid JSON"), String(first?.message));
});

Deno.test("parseIsf() refuses a header field of the wrong type at its line", () => {
  const code = INVERT.replace('"DEFAULT": 1.0, "MIN"', '"DEFAULT": "big", "MIN"');
  const [first] = problems(code);
  assert.deepEqual(first?.line, 8);
  assert(first?.message.startsWith("INPUTS.1.DEFAULT"), String(first?.message));
});

Deno.test("parseIsf() refuses MIN above MAX, an unknown image and a missing header", () => {
  // A DEFAULT out of range is clamped (leniency_test.ts); a range upside down is refused.
  const outOfRange = problems(INVERT.replace('"MIN": 0.0', '"MIN": 2.0'));
  assert(
    outOfRange[0]?.message.includes("MIN 2 is above MAX 1"),
    String(outOfRange[0]?.message),
  );
  const unknown = problems(INVERT.replace("IMG_THIS_PIXEL(inputImage)", "IMG_THIS_PIXEL(other)"));
  assert.deepEqual(unknown[0]?.line, 12);
  assert(unknown[0]?.message.includes('"other" is not an image or audio input'));
  const bare = problems("void main() { gl_FragColor = vec4(1.0); }");
  assert.deepEqual(bare[0]?.line, 1);
  assert(bare[0]?.message.includes("must begin with"));
});

Deno.test("parseIsf() asks an effect for an image; a visualizer may read no audio", () => {
  const generator = `/*{ "INPUTS": [] }*/\nvoid main() { gl_FragColor = vec4(1.0); }\n`;
  assert(problems(generator, "effect")[0]?.message.includes("inputImage"));
  // Issue 45: a visualizer that reads no audio is taken and draws without it.
  assert(parseIsf(generator, "visualizer").ok);
  assert(parseIsf(EVERY_INPUT, "visualizer").ok);
});

Deno.test("parseIsf() refuses a GLSL syntax error at the user's line and column", () => {
  const [problem, ...rest] = problems(
    INVERT.replace("1.0 - c.rgb, amount)", "1.0 - c.rgb, amount"),
  );
  assert.deepEqual(rest, []);
  assert.equal(problem?.line, 13);
  // The column is where the parser gave up: here the "=" of the statement it could not read.
  assert.equal(problem?.column, INVERT.split("\n")[12]!.indexOf("=") + 1);
  assert.match(problem?.message ?? "", /^GLSL syntax: expected .* but "=" found$/);
});

Deno.test("parseIsf() names an undeclared name where it is used", () => {
  const typo = problems(INVERT.replace("1.0 - c.rgb, amount)", "1.0 - c.rgb, amont)"));
  const line = INVERT.split("\n")[12]!;
  assert.deepEqual(typo, [{
    line: 13,
    column: line.indexOf("amount") + 1,
    message: "'amont' : undeclared identifier",
  }]);
  const call = problems(INVERT.replace("mix(c.rgb", "mixx(c.rgb"));
  assert.deepEqual(call, [{
    line: 13,
    column: line.indexOf("mix") + 1,
    message: "'mixx' : no matching function (it is neither declared nor built in)",
  }]);
});

Deno.test("parseIsf() keeps lines across preprocessor directives and knows GL_ES", () => {
  const code = INVERT.replace(
    "void main() {",
    [
      "#ifdef GL_ES",
      "precision mediump float;",
      "#endif",
      "#define SCALE(x) ((x) * 2.0)",
      "/* a comment",
      "   over lines */ float twice(float x) { return SCALE(x); }",
      "void main() {",
    ].join("\n"),
  );
  assert.ok(parseIsf(code, "effect").ok);
  const broken = code.replace("gl_FragColor = vec4(", "gl_FragColor = vec4(twice(undefinedName), ");
  const [problem] = problems(broken);
  assert.equal(problem?.line, 19);
  assert.equal(problem?.message, "'undefinedName' : undeclared identifier");
  const [syntax] = problems(code.replace("return SCALE(x);", "return SCALE(x)"));
  assert.equal(syntax?.line, 16);
});

Deno.test("parseIsf() takes what ISF Editor files write: a number ISFVSN, null DEFAULT, MIN/MAX on a bool, _imgRect", () => {
  const code = INVERT
    .replace('"ISFVSN": "2"', '"ISFVSN": 2')
    .replace('"TYPE": "image" }', '"TYPE": "image", "DEFAULT": null }')
    .replace(
      '"MAX": 1.0 }',
      '"MAX": 1.0 },\n    { "NAME": "flip", "TYPE": "bool", "MIN": false, "MAX": true, "DEFAULT": true }',
    )
    .replace(
      "vec4 c = IMG_THIS_PIXEL(inputImage);",
      "vec4 c = IMG_NORM_PIXEL(inputImage, _inputImage_imgRect.xy + isf_FragNormCoord);",
    );
  const p = program(code);
  assert.deepEqual(p.parameters.map((x) => x.name), ["amount", "flip"]);
  assert.ok(p.fragment.includes("uniform vec4 _inputImage_imgRect;"));
});

Deno.test("parseIsf() refuses a varying of a shader's own vertex shader (.vs), at its line", () => {
  const code = INVERT.replace("void main() {", "varying vec2 left_coord;\nvoid main() {");
  assert.deepEqual(problems(code), [{
    line: 11,
    column: 14,
    message:
      "'left_coord' : a varying set by the shader's own vertex shader (.vs), which this preset has not: give it as vertexCode (preset.import takes the .vs beside the .fs), or compute it in main() from isf_FragNormCoord",
  }]);
});

Deno.test("parseIsf() refuses code nested past its bound, before the parser runs out of stack", () => {
  // 3000 deep: the parser's stack ends between 800 and 1500 brackets, the bound (128) well before.
  const deep = INVERT.replace(
    "amount), c.a)",
    `${"(".repeat(3000)}amount${")".repeat(3000)}), c.a)`,
  );
  const line = deep.split("\n").findIndex((l) => l.includes("(((")) + 1;
  // main's `{`, `vec4(` and `mix(` are open: the 126th of these brackets is the 129th open.
  const column = deep.split("\n")[line - 1]!.indexOf("(((") + 126;
  const [problem, ...rest] = problems(deep);
  assert.deepEqual(rest, []);
  assert.deepEqual(problem, {
    line,
    column,
    message: "the check stopped at its bound: brackets nest over 128 deep: nest less",
  });
});

Deno.test("parseIsf() refuses a missing ';' at the end of the line that lacks it", () => {
  const code = [
    "/*{",
    '  "ISFVSN": "2",',
    '  "INPUTS": [',
    '    { "NAME": "inputImage", "TYPE": "image" }',
    "  ]",
    "}*/",
    "",
    "// The next statement lacks its ';'.",
    "void main() {",
    "  vec4 c = IMG_THIS_PIXEL(inputImage) + undeclaredThing  // no ';'",
    "  gl_FragColor = c;",
    "}",
  ].join("\n");
  const [problem, ...rest] = problems(code);
  assert.deepEqual(rest, []);
  // As TypeScript reports it: at the end of line 10, not at line 11's first token.
  assert.equal(problem?.line, 10, JSON.stringify(problem));
  assert.equal(problem?.column, code.split("\n")[9]!.indexOf("  //") + 1);
  assert.match(problem?.message ?? "", /^GLSL syntax: ';' expected at the end of the line/);
});

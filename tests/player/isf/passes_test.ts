/**
 * ISF's PASSES (targets, size expressions) and GLSL ES 3.00 code, as
 * `parseIsf` reads and checks them; the pixels are in
 * tests/player/output/isf_passes_test.ts.
 */
import assert from "node:assert/strict";
import { MAX_TARGET_SIDE, parseIsf, passSizes } from "../../../player/isf/mod.ts";
import { INVERT } from "./_shaders.ts";
import {
  FLOAT_TARGET,
  HOLD,
  INVERT_300,
  LOOP_BOUND,
  SIZES,
  TWO_PASS_BLUR,
} from "./_passes_shaders.ts";

function program(code: string) {
  const result = parseIsf(code, "effect");
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.program;
}

function problems(code: string) {
  const result = parseIsf(code, "effect");
  if (result.ok) throw new Error("expected problems");
  return result.problems;
}

/** The line of `code` that holds `text` (1-based). */
function lineOf(code: string, text: string): number {
  return code.split("\n").findIndex((l) => l.includes(text)) + 1;
}

Deno.test("parseIsf() reads PASSES: targets as samplers, persistent and float flags", () => {
  for (const code of [SIZES, TWO_PASS_BLUR, HOLD, FLOAT_TARGET]) program(code);
  const sizes = program(SIZES);
  assert.deepEqual(sizes.samplers, ["inputImage", "small", "full"]);
  assert.deepEqual(sizes.passes, [
    { target: "small", persistent: false, float: false },
    { target: "full", persistent: false, float: false },
    { target: null, persistent: false, float: false },
  ]);
  assert.deepEqual(program(HOLD).passes[0], { target: "held", persistent: true, float: false });
  assert.deepEqual(program(FLOAT_TARGET).passes[0], {
    target: "wide",
    persistent: false,
    float: true,
  });
  assert(sizes.fragment.includes("uniform sampler2D small;"), "a target is an image by name");
  assert.deepEqual(program(INVERT).passes, [], "no PASSES: one pass");
});

Deno.test("passSizes() evaluates WIDTH and HEIGHT with $WIDTH, $HEIGHT and the inputs", () => {
  const { header } = program(SIZES);
  assert.deepEqual(passSizes(header, { scale: 4 }, 160, 90), [[40, 1], [160, 90], [160, 90]]);
  assert.deepEqual(passSizes(header, { scale: 3 }, 160, 90)[0], [53, 1]);
  const power = SIZES.replace(`"floor($WIDTH / $scale)"`, `"2 ^ 3 * 2 + max(1, -$scale)"`);
  assert.deepEqual(
    passSizes(program(power).header, { scale: 4 }, 160, 90)[0],
    [17, 1],
    "^ is power",
  );
  const huge = SIZES.replace(`"floor($WIDTH / $scale)"`, `"$WIDTH * 1000"`);
  assert.deepEqual(passSizes(program(huge).header, { scale: 1 }, 160, 90)[0], [MAX_TARGET_SIDE, 1]);
  const none = SIZES.replace(`"floor($WIDTH / $scale)"`, `"$WIDTH - $WIDTH"`);
  assert.deepEqual(passSizes(program(none).header, { scale: 1 }, 160, 90)[0], [1, 1], "at least 1");
});

Deno.test("parseIsf() refuses a bad PASSES entry at its line, with its field path", () => {
  const cases: Array<[string, string, RegExp]> = [
    [`"floor($WIDTH / $zoom)"`, "$zoom", /^PASSES\.0\.WIDTH: .*\$zoom is not \$WIDTH/],
    [`"floor($WIDTH / "`, 'floor($WIDTH / "', /^PASSES\.0\.WIDTH: .* is not an expression/],
    [`"fl($WIDTH)"`, "fl($WIDTH)", /^PASSES\.0\.WIDTH: .*fl is not a function here/],
    [`"WIDTH / 2"`, "WIDTH / 2", /^PASSES\.0\.WIDTH: .*WIDTH is not a variable/],
    [`"$WIDTH[0]"`, "$WIDTH[0]", /^PASSES\.0\.WIDTH: .*MemberExpression is not a number/],
    [`"'wide'"`, "'wide'", /^PASSES\.0\.WIDTH: .*is not a number/],
    [`"$WIDTH / 0 - $WIDTH / 0"`, "/ 0 -", /^PASSES\.0\.WIDTH: .*gives no number/],
    [`"constructor($WIDTH)"`, "constructor", /^PASSES\.0\.WIDTH: .*constructor is not a function/],
  ];
  for (const [expression, text, message] of cases) {
    const code = SIZES.replace(`"floor($WIDTH / $scale)"`, expression);
    const [problem, ...more] = problems(code);
    assert.equal(more.length, 0, JSON.stringify(more));
    assert.match(problem!.message, message, expression);
    assert.equal(problem!.line, lineOf(code, text), expression);
  }
  const zero = problems(SIZES.replace(`"HEIGHT": "1"`, `"HEIGHT": 0`));
  assert.match(zero[0]!.message, /^PASSES\.0\.HEIGHT: the size 0 is below 1 pixel/);
});

Deno.test("parseIsf() refuses a target named twice, or named as an input or as ISF's", () => {
  const named = (name: string) => SIZES.replace(`"TARGET": "full"`, `"TARGET": "${name}"`);
  const messages = ["small", "scale", "TIME"].map((name) => problems(named(name))[0]!);
  assert.match(
    messages[0]!.message,
    /^PASSES\.1\.TARGET: "small" is the target of an earlier pass/,
  );
  assert.match(messages[1]!.message, /^PASSES\.1\.TARGET: "scale" is the name of an input/);
  assert.match(messages[2]!.message, /^PASSES\.1\.TARGET: "TIME" is a name ISF declares/);
  assert.equal(messages[0]!.line, lineOf(SIZES, `"TARGET": "full"`));
  const point = SIZES.replace(
    `{ "NAME": "scale", "TYPE": "float", "DEFAULT": 4, "MIN": 1, "MAX": 16 }`,
    `{ "NAME": "scale", "TYPE": "point2D", "DEFAULT": [4, 4] }`,
  );
  assert.match(problems(point)[0]!.message, /\$scale is not \$WIDTH, \$HEIGHT nor a float/);
});

Deno.test("parseIsf() compiles code that says #version 300 es as GLSL ES 3.00", () => {
  const p = program(INVERT_300);
  assert.equal(p.version, "300 es");
  assert(p.fragment.startsWith("#version 300 es\n"), "the directive first");
  assert(p.vertex.startsWith("#version 300 es\n"), "a vertex shader of the same version");
  assert(p.fragment.includes("in vec2 isf_FragNormCoord;"));
  const lines = p.fragment.split("\n");
  const versionLine = lineOf(INVERT_300, "#version");
  assert.equal(lines[p.lineOffset + versionLine - 1]!.trim(), "", "its own line left blank");
  const sampled = lineOf(INVERT_300, "IMG_THIS_PIXEL");
  assert.match(lines[p.lineOffset + sampled - 1]!, /texture\(inputImage, isf_FragNormCoord\)/);
  assert.equal(program(INVERT).version, "100");
  const hundred = program(INVERT.replace("void main", "#version 100\nvoid main"));
  assert.equal(hundred.version, "100");
  assert(!hundred.fragment.includes("#version"));
});

Deno.test("parseIsf() names the lines of GLSL ES 3.00 code, and refuses other versions", () => {
  const typo = INVERT_300.replace("1.0 - same.rgb", "1.0 - sme.rgb");
  const [undeclared] = problems(typo);
  assert.equal(undeclared!.line, lineOf(typo, "sme.rgb"));
  assert.match(undeclared!.message, /'sme' : undeclared identifier/);
  const desktop = INVERT_300.replace("#version 300 es", "#version 330 core");
  const [version] = problems(desktop);
  assert.equal(version!.line, lineOf(desktop, "#version"));
  assert.match(version!.message, /^#version 330 core is not supported/);
  const late = INVERT_300.replace(
    "#version 300 es\nout vec4 fragColor;",
    "out vec4 fragColor;\n#version 300 es",
  );
  const [after] = problems(late);
  assert.equal(after!.line, lineOf(late, "#version"));
  assert.match(after!.message, /#version must come before any code/);
  const input = INVERT_300.replace("out vec4 fragColor;", "out vec4 fragColor;\nin vec2 uv;");
  assert.match(
    problems(input)[0]!.message,
    /'uv' : a varying set by the shader's own vertex shader/,
  );
});

Deno.test("parseIsf() gives ES 1.00 code lifted ES 3.00 sources, on the same lines", () => {
  const p = program(LOOP_BOUND);
  const lifted = p.lifted!;
  assert(lifted.fragment.startsWith("#version 300 es\n"));
  assert(lifted.vertex.startsWith("#version 300 es\n"));
  assert(lifted.fragment.includes("#define gl_FragColor isf_FragColor"));
  assert(lifted.fragment.includes("#define texture2D texture"));
  const loop = lineOf(LOOP_BOUND, "for (");
  const at = (fragment: string, offset: number) => fragment.split("\n")[offset + loop - 1];
  assert.equal(at(lifted.fragment, lifted.lineOffset), at(p.fragment, p.lineOffset));
  assert.match(at(lifted.fragment, lifted.lineOffset)!, /for \(int i = 0; i < int\(taps\)/);
  assert.equal(program(INVERT_300).lifted, null, "ES 3.00 code is what it is");
});

/**
 * ISF's PASSES (targets, size expressions) and GLSL ES 3.00 code, as
 * `parseIsf` reads and checks them; the pixels are in
 * tests/player/output/isf_passes_test.ts.
 */
import assert from "node:assert/strict";
import {
  MAX_PASSES,
  MAX_TARGET_SIDE,
  parseIsf,
  passSizes,
  TEXEL_BUDGET,
} from "../../../player/isf/mod.ts";
import { ShaderPass, ShaderProgram } from "../../../protocol/output.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";
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
  assert.deepEqual(passSizes(header, { values: { scale: 4 }, width: 160, height: 90 }), [[40, 1], [
    160,
    90,
  ], [160, 90]]);
  assert.deepEqual(passSizes(header, { values: { scale: 3 }, width: 160, height: 90 })[0], [53, 1]);
  const power = SIZES.replace(`"floor($WIDTH / $scale)"`, `"2 ^ 3 * 2 + max(1, -$scale)"`);
  assert.deepEqual(
    passSizes(program(power).header, { values: { scale: 4 }, width: 160, height: 90 })[0],
    [17, 1],
    "^ is power",
  );
  const none = SIZES.replace(`"floor($WIDTH / $scale)"`, `"$WIDTH - $WIDTH"`);
  assert.deepEqual(
    passSizes(program(none).header, { values: { scale: 1 }, width: 160, height: 90 })[0],
    [1, 1],
    "at least 1",
  );
});

/** An effect whose PASSES are `passes` (then a last pass to the output). */
function withPasses(passes: object[]): string {
  const header = { INPUTS: [{ NAME: "inputImage", TYPE: "image" }], PASSES: [...passes, {}] };
  return `/*${JSON.stringify(header, null, 1)}*/
void main() { gl_FragColor = IMG_THIS_PIXEL(inputImage); }
`;
}

Deno.test("parseIsf() refuses more than MAX_PASSES passes, at PASSES", () => {
  const targets = (n: number) => Array.from({ length: n }, (_, i) => ({ TARGET: `t${i}` }));
  assert.equal(program(withPasses(targets(MAX_PASSES - 1))).passes.length, MAX_PASSES);
  const [problem, ...more] = problems(withPasses(targets(MAX_PASSES)));
  assert.equal(more.length, 0, JSON.stringify(more));
  assert.match(problem!.message, new RegExp(`^PASSES: .*at most ${MAX_PASSES}`));
  assert.equal(problem!.line, lineOf(withPasses([]), `"PASSES"`), "at the PASSES key's value");
  const many = withPasses(Array.from({ length: 10000 }, () => ({})));
  assert.match(problems(many)[0]!.message, /^PASSES: /, "10 000 passes: one problem");
});

Deno.test("parseIsf() refuses a target side over MAX_TARGET_SIDE, as a number or evaluated", () => {
  const side = (size: object) => withPasses([{ TARGET: "a", ...size }]);
  assert.equal(program(side({ WIDTH: MAX_TARGET_SIDE, HEIGHT: "$HEIGHT * 2" })).passes.length, 2);
  const cases: Array<[object, RegExp]> = [
    [{ WIDTH: 1e9 }, /^PASSES\.0\.WIDTH: the size 1000000000 is over 4096 pixels/],
    [{ HEIGHT: "$HEIGHT * 1e6" }, /^PASSES\.0\.HEIGHT: .*gives 1080000000 pixels .* over 4096/],
    [{ WIDTH: MAX_TARGET_SIDE + 1 }, /^PASSES\.0\.WIDTH: the size 4097 is over/],
  ];
  for (const [size, message] of cases) {
    const [problem, ...more] = problems(side(size));
    assert.equal(more.length, 0, JSON.stringify(more));
    assert.match(problem!.message, message);
  }
});

Deno.test("parseIsf() refuses a size expression over 256 characters at its field, at once", () => {
  const side = (WIDTH: string) => withPasses([{ TARGET: "a", WIDTH }]);
  const just = `1${"+1".repeat(127)}`;
  assert.equal(just.length, 255);
  assert.equal(program(side(just)).passes.length, 2);
  // (100 000 terms are over the code's bound of characters, refused before the header.)
  for (const terms of [200, 20000]) {
    const [problem, ...more] = problems(side("1+".repeat(terms) + "1"));
    assert.equal(more.length, 0, JSON.stringify(more));
    assert.match(problem!.message, /^PASSES\.0\.WIDTH: the expression is over 256 characters/);
  }
  const nested = `${"(".repeat(120)}$WIDTH${")".repeat(120)}`;
  assert.equal(program(side(nested)).passes.length, 2, "120 parentheses deep, within 256");
});

Deno.test("passSizes() keeps each side to twice the render's and the program to TEXEL_BUDGET", () => {
  const { header } = program(withPasses([{ TARGET: "a", WIDTH: 4000, HEIGHT: "$HEIGHT * 3" }]));
  assert.deepEqual(passSizes(header, { values: {}, width: 160, height: 90 })[0], [320, 180]);
  assert.deepEqual(passSizes(header, { values: {}, width: 1920, height: 1080 })[0], [3840, 2160]);
  // 8 persistent targets at the render size (two textures each, as ISF-Files' Micro Buffer)
  // are within the budget at 1080p, over it at 4K: they then fit it, all scaled alike.
  const row = { TARGET: "row", WIDTH: 1, HEIGHT: 1, PERSISTENT: true };
  const full = [
    ...Array.from({ length: 8 }, (_, i) => ({ TARGET: `t${i}`, PERSISTENT: true })),
    row,
  ];
  const big = program(withPasses(full)).header;
  const at = (width: number, height: number) => passSizes(big, { values: {}, width, height });
  assert.deepEqual(
    at(1920, 1080)[0],
    [1920, 1080],
    "8 x 2 x 1080p and a pixel are within the budget",
  );
  const scaled = at(3840, 2160);
  const texels = scaled.slice(0, 9).reduce((sum, [w, h]) => sum + 2 * w * h, 0);
  assert(texels <= TEXEL_BUDGET, `${texels} texels`);
  assert(texels > TEXEL_BUDGET * 0.95, `${texels} texels: scaled no more than needed`);
  assert.deepEqual(scaled[9], [3840, 2160], "the output pass is the render's");
  const none = SIZES.replace(`"floor($WIDTH / $scale)"`, `"$WIDTH - $WIDTH"`);
  const tiny = passSizes(program(none).header, { values: { scale: 1 }, width: 160, height: 90 });
  assert.deepEqual(tiny[0], [1, 1], "at least 1");
});

Deno.test("the output's ShaderPass and ShaderProgram schemas bound passes and sizes", () => {
  const sizes = (n: number, side = 2) => Array.from({ length: n }, () => [side, side]);
  const pass = (s: number[][]) => ShaderPass.safeParse({ program: "p", uniforms: {}, sizes: s });
  assert(pass(sizes(MAX_PASSES)).success);
  assert(!pass(sizes(MAX_PASSES + 1)).success, "too many sizes");
  assert(!pass(sizes(1, MAX_TARGET_SIDE + 1)).success, "a side too big");
  const spec = { target: "t", persistent: false, float: false };
  const program = (n: number) =>
    ShaderProgram.safeParse({
      name: "p",
      source: "",
      uniforms: [],
      passes: Array.from({ length: n }, () => spec),
    });
  assert(program(MAX_PASSES).success);
  assert(!program(MAX_PASSES + 1).success, "too many passes");
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

Deno.test("parseIsf() reads no #version inside a comment", () => {
  const notes = "/* notes:\n#version 300 es would make this ES 3.00\n*/\n";
  assert.equal(program(`${INVERT}${notes}`).version, "100", "a block comment after the code");
  assert.equal(program(`${INVERT}// #version 300 es\n`).version, "100", "a line comment");
  const before = INVERT_300.replace("#version 300 es", `${notes}#version 300 es // ES 3.00`);
  assert.equal(program(before).version, "300 es", "a comment before it, one after it");
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

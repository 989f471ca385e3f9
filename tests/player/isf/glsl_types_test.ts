/**
 * The check compiles the code the output draws with glslang (`player/isf/glsl_types.ts`) in the
 * player's long-lived compiler process (`glsl_compiler.ts`): a type error is refused at its line
 * with no output running; desktop-GLSL habits are translated in the lifted sources
 * (`glsl_lift.ts`) and taken.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/clock.ts";
import { IsfCheckStalled, parseIsfApart } from "../../../player/isf/apart.ts";
import { GlslCompiler } from "../../../player/isf/glsl_compiler.ts";
import { glslangSource, loadGlslang, typeProblems } from "../../../player/isf/glsl_types.ts";
import { parseIsf } from "../../../player/isf/parse.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

/** INVERT with `line` added as the first line of `main`. */
const withLine = (line: string) => INVERT.replace("void main() {", `void main() {\n  ${line}`);
const lineOf = (code: string, text: string) =>
  code.split("\n").findIndex((l) => l.includes(text)) + 1;

Deno.test("parseIsfApart() refuses a type error at its line, with no output running", async () => {
  const code = withLine("vec3 k = amount;");
  const result = await parseIsfApart(code, "effect");
  assert.equal(result.ok, false);
  const [problem] = result.ok ? [] : result.problems;
  assert.equal(problem?.line, lineOf(code, "vec3 k"), JSON.stringify(problem));
  assert.match(problem!.message, /'=' : cannot convert from 'uniform highp float' to/);
  // The code as written still passes the parse: only the compiler sees the type.
  assert.equal(parseIsf(code, "effect").ok, true);
});

Deno.test("parseIsfApart() takes desktop-GLSL habits, translated in the lifted sources", async () => {
  const habits = [
    "float one = 1;", // an int initializing a float
    "float halved = amount * 2 / 4;", // ints beside a float
    "bool on = amount > 0;", // an int compared with a float
    "uint u = 0; u = u + 1;", // ES 3.00's uint in ES 1.00 code, an int literal
    "vec2 p = vec2(1.0) * 2; float q = pow(one, 2);", // a vector times an int, a built-in's int
  ];
  const code = withLine(habits.join(" "));
  assert.equal(parseIsf(code, "effect").ok, true);
  const result = await parseIsfApart(code, "effect");
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  const lifted = result.program.lifted!;
  const line = lifted.fragment.split("\n")[lifted.lineOffset + lineOf(code, "float one") - 1];
  assert.match(
    line!,
    /float one = 1\.0;.*amount \* 2\.0 \/ 4\.0;.*amount > 0\.0;.*uint u = 0u; u = u \+ 1u;/,
  );
  assert.match(line!, /vec2\(1\.0\) \* 2\.0; float q = pow\(one, 2\.0\);/);
  // The ES 1.00 sources are as written: the output compiles them first.
  assert.ok(result.program.fragment.includes("float one = 1;"));
});

Deno.test("parseIsfApart() takes a function named like an ES 3.00 built-in and a global from a uniform", async () => {
  const code = INVERT.replace(
    "void main() {",
    "float sign(float x) { return x < 0.0 ? -1.0 : 1.0; }\nfloat level = amount * 0.5;\nvoid main() {\n  float s = sign(level);",
  );
  const result = await parseIsfApart(code, "effect");
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  assert.match(
    result.program.lifted!.fragment,
    /float isf_sign\(float x\)[\s\S]*= isf_sign\(level\)/,
  );
});

Deno.test("parseIsf() takes a #define whose line ends in a // comment", () => {
  const code = INVERT.replace("void main() {", "#define HALF 0.5 // a half\nvoid main() {")
    .replace("amount), c.a)", "amount * HALF * 2.0), c.a)");
  const result = parseIsf(code, "effect");
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
});

Deno.test("glslangSource() rewrites for glslang's Vulkan target on the same lines", () => {
  const result = parseIsf(INVERT, "effect");
  assert.ok(result.ok);
  const lifted = result.program.lifted!;
  const source = glslangSource(lifted.fragment, true);
  assert.equal(source.split("\n").length, lifted.fragment.split("\n").length);
  assert.match(
    source,
    /^#version 310 es\n#extension GL_EXT_shader_non_constant_global_initializers/,
  );
  assert.match(source, /layout\(binding=\d+\) uniform isf_u\d+ \{ float amount; \};/);
  assert.match(source, /layout\(binding=\d+\) uniform sampler2D inputImage;/);
  assert.match(source, /layout\(location=\d+\) in vec2 isf_FragNormCoord;/);
});

Deno.test("typeProblems() maps glslang's log to the user's lines, in GL's words", async () => {
  const compile = await loadGlslang();
  const code = withLine("vec3 k = amount;");
  const result = parseIsf(code, "effect");
  assert.ok(result.ok);
  const { fragment, lineOffset } = result.program.lifted!;
  const log = compile(glslangSource(fragment, true));
  const problems = typeProblems(log, code, lineOffset);
  assert.equal(problems.length, 1, log);
  assert.equal(problems[0]!.line, lineOf(code, "vec3 k"));
  assert.doesNotMatch(problems[0]!.message, /layout|temp|isf_u/);
  assert.equal(compile(glslangSource(parseIsfLifted(INVERT), true)), "");
});

function parseIsfLifted(code: string): string {
  const result = parseIsf(code, "effect");
  assert.ok(result.ok);
  return result.program.lifted!.fragment;
}

Deno.test("GlslCompiler keeps one process across compiles and replaces it past its memory", async () => {
  const source = glslangSource(parseIsfLifted(INVERT), true);
  const kept = new GlslCompiler();
  const replaced = new GlslCompiler({ rssMb: 0 });
  try {
    for (let i = 0; i < 3; i++) assert.equal((await kept.compile(source)).log, "");
    assert.equal(kept.started, 1);
    for (let i = 0; i < 2; i++) assert.equal((await replaced.compile(source)).log, "");
    assert.equal(replaced.started, 2);
  } finally {
    kept.close();
    replaced.close();
  }
});

Deno.test("GlslCompiler gives no verdict when a fresh process does not answer", async () => {
  const clock = new VirtualClock();
  const silent = new URL("./_silent_checker.ts", import.meta.url).pathname;
  const compiler = new GlslCompiler({
    clock,
    stallMs: 1000,
    command: [Deno.execPath(), "run", "--quiet", silent],
  });
  const compiled = compiler.compile("void main() {}").then(() => null, (e) => e);
  try {
    // Past two looks with no answer, the process is ended: tried once (it was fresh), no verdict.
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      clock.advance(1000);
    }
    const error = await compiled;
    assert.ok(error instanceof Error, String(error));
    assert.equal(compiler.started, 1);
  } finally {
    compiler.close();
  }
});

Deno.test("parseIsfApart() answers a compiler that gave no answer as no verdict (IsfCheckStalled)", async () => {
  const compiler = { compile: () => Promise.reject(new Error("the compiler ended")) };
  const result = parseIsfApart(INVERT, "effect", { compiler: compiler as unknown as GlslCompiler });
  const error = await result.then(() => null, (e) => e);
  assert.ok(error instanceof IsfCheckStalled, String(error));
  assert.match(error.message, /its compile ended without an answer.*not a verdict on the code/);
});

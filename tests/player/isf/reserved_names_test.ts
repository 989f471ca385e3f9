/**
 * The loop cap's counter cannot be shadowed or renamed by the code it caps: a declaration,
 * a parameter, a struct field, a macro (`#define`, `#undef`) or any other use of an `isf_`
 * name the check reserves is refused at its line, and so is a macro that renames the
 * guard's `if` or `break`.
 */
import assert from "node:assert/strict";
import { describeProblem, parseIsf } from "../../../player/isf/mod.ts";
import { LOOP_COUNTER } from "../../../player/isf/loop_cap.ts";

const HEADER = `/*{"ISFVSN":"2","INPUTS":[{"NAME":"inputImage","TYPE":"image"}]}*/\n`;
const ENDLESS = "for (int i = 0; i >= 0; i++) { c += vec4(0.001); }";

/** Cases: the code after the header, and the 1-based user line of the use refused. */
const SHADOWS: Record<string, [string, number]> = {
  "a local": [
    `void main() {\n  float ${LOOP_COUNTER} = -1e20;\n  vec4 c = vec4(0.0);\n  ${ENDLESS}\n  gl_FragColor = c;\n}`,
    3,
  ],
  "a parameter": [
    `vec4 f(int ${LOOP_COUNTER}) {\n  vec4 c = vec4(0.0);\n  ${ENDLESS}\n  return c;\n}\nvoid main() { gl_FragColor = f(-2147483647); }`,
    2,
  ],
  "a #define": [
    `#define ${LOOP_COUNTER} myc\nfloat myc = -1e20;\nvoid main() {\n  vec4 c = vec4(0.0);\n  ${ENDLESS}\n  gl_FragColor = c;\n}`,
    2,
  ],
  "an #undef": [
    `#undef ${LOOP_COUNTER}\nvoid main() {\n  vec4 c = vec4(0.0);\n  ${ENDLESS}\n  gl_FragColor = c;\n}`,
    2,
  ],
  "a struct field": [
    `struct S { float ${LOOP_COUNTER}; };\nvoid main() {\n  vec4 c = vec4(0.0);\n  ${ENDLESS}\n  gl_FragColor = c;\n}`,
    2,
  ],
  "a global redeclared": [
    `float ${LOOP_COUNTER} = -1e20;\nvoid main() {\n  vec4 c = vec4(0.0);\n  ${ENDLESS}\n  gl_FragColor = c;\n}`,
    2,
  ],
  "an assignment": [
    `void main() {\n  vec4 c = vec4(0.0);\n  ${LOOP_COUNTER} = -2147483647;\n  ${ENDLESS}\n  gl_FragColor = c;\n}`,
    4,
  ],
};

for (const [name, [body, line]] of Object.entries(SHADOWS)) {
  Deno.test(`parseIsf() refuses ${name} of the loop cap's counter, at its line`, () => {
    const result = parseIsf(HEADER + body, "effect");
    assert.equal(result.ok, false, `${name} was taken`);
    const said = result.ok ? [] : result.problems.map(describeProblem);
    assert.ok(
      said.some((s) =>
        s.startsWith(`line ${line}, `) &&
        s.includes(`'${LOOP_COUNTER}' is reserved by the loop cap: rename it`)
      ),
      said.join("; "),
    );
  });
}

Deno.test("parseIsf() refuses any isf_ name it reserves, and keeps isf_FragNormCoord usable", () => {
  const other = `void main() {\n  float isf_mine = 1.0;\n  gl_FragColor = vec4(isf_mine);\n}`;
  const result = parseIsf(HEADER + other, "effect");
  assert.equal(result.ok, false);
  const said = result.ok ? "" : result.problems.map(describeProblem).join("; ");
  assert.match(said, /^line 3, column 9: 'isf_mine' is reserved/);
  const usable =
    `void main() {\n  gl_FragColor = IMG_NORM_PIXEL(inputImage, isf_FragNormCoord);\n}`;
  assert.ok(parseIsf(HEADER + usable, "effect").ok);
  const commented =
    `// isf_loopIterations in a comment\nvoid main() {\n  /* ${LOOP_COUNTER} */ gl_FragColor = vec4(1.0);\n}`;
  assert.ok(parseIsf(HEADER + commented, "effect").ok);
});

Deno.test("parseIsf() refuses a macro that renames the loop guard's if or break", () => {
  for (const word of ["break", "if"]) {
    const code =
      `#define ${word}\nvoid main() {\n  vec4 c = vec4(0.0);\n  ${ENDLESS}\n  gl_FragColor = c;\n}`;
    const result = parseIsf(HEADER + code, "effect");
    assert.equal(result.ok, false, `#define ${word} was taken`);
    const said = result.ok ? "" : result.problems.map(describeProblem).join("; ");
    assert.match(said, new RegExp(`^line 2, column 1: .*'${word}'.*loop cap`));
  }
});

Deno.test("parseIsf() refuses the counter's name pasted by a macro (##)", () => {
  const code =
    `#define CAT(a, b) a##b\nvoid main() {\n  float CAT(is, f_loopIterations) = -1e20;\n  vec4 c = vec4(0.0);\n  ${ENDLESS}\n  gl_FragColor = c;\n}`;
  assert.equal(parseIsf(HEADER + code, "effect").ok, false);
});

Deno.test("parseIsf() refuses the counter's name split by a line continuation, at its first line", () => {
  const code =
    `#define X is\\\nf_loopIterations\nvoid main() {\n  float X = -1e20;\n  vec4 c = vec4(0.0);\n  ${ENDLESS}\n  gl_FragColor = c;\n}`;
  const result = parseIsf(HEADER + code, "effect");
  assert.equal(result.ok, false);
  const said = result.ok ? "" : result.problems.map(describeProblem).join("; ");
  assert.match(said, /^line 2, column 11: 'isf_loopIterations' is reserved by the loop cap/);
});

/**
 * Every loop of a preset's shader is capped in the sources the output compiles: the endless
 * ones, a 10^7 one, nested ones, those of functions main calls, single statements and
 * do-while; lines stay where they were, and a loop a macro writes is capped or named.
 */
import assert from "node:assert/strict";
import { describeProblem, type IsfProgram, parseIsf } from "../../../player/isf/mod.ts";
import { LOOP_CAP } from "../../../player/isf/bounds.ts";
import { LOOP_COUNTER, LOOP_GUARD } from "../../../player/isf/loop_cap.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

/** INVERT with `body` as the body of its main (after the colour is read). */
function withMain(body: string, before = ""): string {
  return INVERT.replace("void main() {", `${before}void main() {`)
    .replace("  gl_FragColor", `${body}\n  gl_FragColor`);
}

function program(code: string): IsfProgram {
  const result = parseIsf(code, "effect");
  assert.ok(result.ok, result.ok ? "" : result.problems.map(describeProblem).join("; "));
  return result.program;
}

/** The user's lines of a source (its declarations left out). */
function userLines(source: string, lineOffset: number): string[] {
  return source.split("\n").slice(lineOffset);
}

Deno.test("parseIsf() caps the endless for(;;) and while(true), and a 10^7 loop", () => {
  const cases = [
    "  for (;;) { c.r += 0.001; }",
    "  while (true) { c.r += 0.001; }",
    "  for (int i = 0; i < 10000000; i++) { c.r += 0.001; }",
    "  do { c.r += 0.001; } while (c.r > -1.0);",
  ];
  for (const loop of cases) {
    const p = program(withMain(loop));
    for (
      const [source, offset] of [[p.fragment, p.lineOffset], [
        p.lifted!.fragment,
        p.lifted!.lineOffset,
      ]] as const
    ) {
      const line = userLines(source, offset).find((l) => l.includes("c.r += 0.001"))!;
      assert.ok(line.includes(`{ ${LOOP_GUARD}c.r += 0.001; }`), line);
      assert.ok(source.includes(`int ${LOOP_COUNTER} = 0;`), "the counter is declared");
    }
  }
  assert.equal(LOOP_GUARD, `if (++${LOOP_COUNTER} > ${LOOP_CAP}) break; `);
});

Deno.test("parseIsf() caps single-statement bodies, nested loops and loops of called functions", () => {
  const helper = "float spin(float x) {\n  while (x < 10.0) x += 0.5;\n  return x;\n}\n";
  const code = withMain(
    [
      "  for (int i = 0; i < 4; i++)",
      "    for (int j = 0; j < 4; j++) c.g += spin(c.r); // nested",
      "  do c.b += 0.1; while (c.b < 0.5);",
      "  if (c.a > 0.0) for (;;) if (c.r > 0.5) break; else c.r += 0.1;",
    ].join("\n"),
    helper,
  );
  const p = program(code);
  const lines = userLines(p.fragment, p.lineOffset);
  const expected = INVERT.split("\n").length + helper.split("\n").length - 1 + 4;
  assert.equal(lines.length, expected, "no line added or removed");
  const at = (text: string) => lines.find((l) => l.includes(text))!;
  assert.equal(at("x += 0.5"), `  while (x < 10.0) { ${LOOP_GUARD}x += 0.5; }`);
  assert.equal(at("for (int i"), `  for (int i = 0; i < 4; i++)`);
  assert.equal(
    at("for (int j"),
    `    { ${LOOP_GUARD}for (int j = 0; j < 4; j++) { ${LOOP_GUARD}c.g += spin(c.r); } } // nested`,
  );
  assert.equal(at("do "), `  do { ${LOOP_GUARD}c.b += 0.1; } while (c.b < 0.5);`);
  assert.equal(
    at("for (;;)"),
    `  if (c.a > 0.0) for (;;) { ${LOOP_GUARD}if (c.r > 0.5) break; else c.r += 0.1; }`,
  );
  const guards = p.fragment.split(LOOP_GUARD).length - 1;
  assert.equal(guards, 5, "one guard a loop");
  assert.ok(program(p.fragment.slice(0, 0) + code), "the capped code checks again");
});

Deno.test("parseIsf() caps a loop written by a macro around its header, and names one it cannot", () => {
  const header = withMain(
    "  LOOP(8) { c.r += 0.1; }",
    "#define LOOP(n) for (int k = 0; k < n; k++)\n",
  );
  const p = program(header);
  const line = userLines(p.fragment, p.lineOffset).find((l) => l.includes("LOOP(8)"))!;
  assert.equal(line, `  LOOP(8) { ${LOOP_GUARD}c.r += 0.1; }`);
  const hidden = withMain("  FOREVER;", "#define FOREVER for (;;) { c.r += 0.1; }\n");
  const result = parseIsf(hidden, "effect");
  assert.equal(result.ok, false);
  const said = result.ok ? "" : result.problems.map(describeProblem).join("; ");
  const line1 = hidden.split("\n").findIndex((l) => l.includes("FOREVER;")) + 1;
  assert.match(said, new RegExp(`^line ${line1}, column 1: a loop whose body a macro writes`));
});

Deno.test("parseIsf() keeps problems at their lines in code with loops", () => {
  const code = withMain("  for (;;) { c.r += 0.1; }\n  c.r += missing;");
  const result = parseIsf(code, "effect");
  assert.equal(result.ok, false);
  const line = code.split("\n").findIndex((l) => l.includes("missing")) + 1;
  const said = result.ok ? "" : describeProblem(result.problems[0]!);
  assert.match(said, new RegExp(`^line ${line}, column \\d+: 'missing' : undeclared identifier`));
});

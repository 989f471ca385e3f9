/**
 * The function-length rule of the house's lint plugin
 * (tools/lint/function_length.ts, docs/architecture.md), run on sources given
 * here, and its place in deno.json.
 */
import assert from "node:assert/strict";
import plugin, { isChecked, MAX_BODY_LINES } from "../../../tools/lint/function_length.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const IN_PROGRAM = `${ROOT}server/example.ts`;

/** `n` statements, one a line. */
const statements = (n: number) => Array.from({ length: n }, (_, i) => `  f(${i});`).join("\n");

/** What the rule says of `source` as a file of the program. */
function run(source: string, file = IN_PROGRAM): string[] {
  return Deno.lint.runPlugin(plugin, file, source).map((d) => d.message);
}

Deno.test("function length: a body of the limit passes, one line more fails", () => {
  assert.deepEqual(run(`function a() {\n${statements(MAX_BODY_LINES)}\n}\n`), []);
  const over = run(`function a() {\n${statements(MAX_BODY_LINES + 1)}\n}\n`);
  assert.deepEqual(over, [
    `This function's body is ${
      MAX_BODY_LINES + 1
    } lines (at most ${MAX_BODY_LINES} without a reason).`,
  ]);
});

Deno.test("function length: methods, arrows and expression bodies are functions too", () => {
  const long = statements(MAX_BODY_LINES + 1);
  const expression = Array.from({ length: MAX_BODY_LINES + 1 }, (_, i) => `  ${i} +`).join("\n");
  const sources = [
    `class A {\n  m() {\n${long}\n  }\n}\n`,
    `const a = () => {\n${long}\n};\n`,
    `const a = function () {\n${long}\n};\n`,
    `const a = () =>\n${expression}\n  0;\n`,
    `const o = {\n  get g() {\n${long}\n  },\n};\n`,
  ];
  for (const source of sources) assert.equal(run(source).length, 1, source.slice(0, 30));
});

Deno.test("function length: a long function inside another counts for both", () => {
  const source = `function outer() {\n  const inner = () => {\n${
    statements(MAX_BODY_LINES + 1)
  }\n  };\n}\n`;
  assert.equal(run(source).length, 2);
});

Deno.test("function length: a reason on the line above excuses it; a reason too short does not", () => {
  const body = `{\n${statements(MAX_BODY_LINES + 5)}\n}\n`;
  const reason = "// long: one case per message kind, read as a table";
  assert.deepEqual(run(`/** Docs. */\n${reason}\nexport function a() ${body}`), []);
  assert.deepEqual(run(`class A {\n  ${reason}\n  m() ${body}}\n`), []);
  assert.deepEqual(run(`// long: a table\nfunction a() ${body}`), [
    `The reason of this ${MAX_BODY_LINES + 5}-line function says too little: "a table".`,
  ]);
  // two lines above is not above
  assert.equal(run(`${reason}\n\nfunction a() ${body}`).length, 2);
});

Deno.test("function length: a reason above no long function fails, so that none outlives its function", () => {
  const stale = run(`// long: it used to be a long switch\nfunction a() {\n  return 1;\n}\n`);
  assert.deepEqual(stale, [
    `This "// long:" comment is not on the line above a function over ${MAX_BODY_LINES} lines.`,
  ]);
});

Deno.test("function length: it checks the program, not tests, tools or benches", () => {
  const long = `function a() {\n${statements(MAX_BODY_LINES + 1)}\n}\n`;
  for (const file of ["main.ts", "server/a.ts", "player/output/page/a.js", "protocol/a.ts"]) {
    assert.ok(isChecked(`${ROOT}${file}`), file);
  }
  for (const file of ["tests/a_test.ts", "tools/a.ts", "bench/a.ts", "server.ts"]) {
    assert.ok(!isChecked(`${ROOT}${file}`), file);
    assert.deepEqual(run(long, `${ROOT}${file}`), [], file);
  }
});

Deno.test("function length: deno.json loads the plugin, so `deno lint` runs it", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  assert.ok(config.lint.plugins?.includes("./tools/lint/function_length.ts"), "lint.plugins");
});

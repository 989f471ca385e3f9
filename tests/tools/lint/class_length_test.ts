/**
 * The class-length rule of the house's lint plugin (tools/lint/class_length.ts,
 * docs/architecture.md), run on sources given here beside the function-length
 * rule (one `// long:` comment may sit above both), and its place in deno.json.
 */
import assert from "node:assert/strict";
import classPlugin, { MAX_CLASS_LINES } from "../../../tools/lint/class_length.ts";
import functionPlugin from "../../../tools/lint/function_length.ts";

/** The repository, decoded as Deno names a linted file (a space stays a space). */
const ROOT = decodeURIComponent(new URL("../../../", import.meta.url).pathname);
const IN_PROGRAM = `${ROOT}server/example.ts`;

/** A class of `lines` lines from its `class` line to its closing brace, both included. */
function klass(lines: number, head = "class A {"): string {
  const fields = Array.from({ length: lines - 2 }, (_, i) => `  f${i} = ${i};`).join("\n");
  return `${head}\n${fields}\n}`;
}

/** What the class rule says of `source` as a file of the program. */
function run(source: string, file = IN_PROGRAM): string[] {
  return Deno.lint.runPlugin(classPlugin, file, source).map((d) => d.message);
}

/** What both rules say of `source`, with each diagnostic's rule. */
function runBoth(source: string): string[] {
  return [classPlugin, functionPlugin].flatMap((plugin) =>
    Deno.lint.runPlugin(plugin, IN_PROGRAM, source).map((d) => `${d.id}: ${d.message}`)
  );
}

const REASON = "// long: one method per message of the protocol, each two lines";

Deno.test("class length: a class of the limit passes, one line more fails", () => {
  assert.deepEqual(run(`${klass(MAX_CLASS_LINES)}\n`), []);
  assert.deepEqual(run(`${klass(MAX_CLASS_LINES + 1)}\n`), [
    `This class is ${MAX_CLASS_LINES + 1} lines (at most ${MAX_CLASS_LINES} without a reason).`,
  ]);
});

Deno.test("class length: declarations, exported ones and expressions are classes", () => {
  const n = MAX_CLASS_LINES + 1;
  const sources = [
    `export ${klass(n)}\n`,
    `export default ${klass(n)}\n`,
    `const A = ${klass(n, "class {")};\n`,
    `export const make = () => ${klass(n, "class extends Base {")};\n`,
    `${klass(n, "class A extends Base implements B {")}\n`,
  ];
  for (const source of sources) assert.equal(run(source).length, 1, source.slice(0, 40));
});

Deno.test("class length: a reason on the line above excuses it; a short one or 'like a class' does not", () => {
  const long = klass(MAX_CLASS_LINES + 5, "export class A {");
  assert.deepEqual(run(`/** Docs. */\n${REASON}\n${long}\n`), []);
  assert.deepEqual(run(`// long: a table\n${long}\n`), [
    `The reason of this ${MAX_CLASS_LINES + 5}-line class says too little: "a table".`,
  ]);
  assert.deepEqual(run(`// long: a closure, like a class\n${long}\n`), [
    `The reason of this ${
      MAX_CLASS_LINES + 5
    }-line class says too little: "a closure, like a class".`,
  ]);
  // two lines above is not above: the class fails, and the function rule calls the comment a stray
  assert.equal(runBoth(`${REASON}\n\n${long}\n`).length, 2);
});

Deno.test("class length: a reason above no long class fails, so that none outlives its class", () => {
  assert.deepEqual(run(`// long: it used to hold the fan-out too\nclass A {\n  a = 1;\n}\n`), [
    `This "// long:" comment is not on the line above a class over ${MAX_CLASS_LINES} lines.`,
  ]);
});

Deno.test("class length: a reason above a long class is no stray for the function rule", () => {
  assert.deepEqual(runBoth(`${REASON}\n${klass(MAX_CLASS_LINES + 1)}\n`), []);
  const longFunction = `function a() {\n${"  f();\n".repeat(61)}}`;
  assert.deepEqual(runBoth(`${REASON}\n${longFunction}\n`), []);
});

Deno.test("class length: a comment above both a class and a function is reported once", () => {
  const stray = runBoth(`// long: it used to hold the fan-out too\nconst A = () => class {};\n`);
  assert.deepEqual(stray, [
    `cueport-class/length: This "// long:" comment is not on the line above a class over ${MAX_CLASS_LINES} lines.`,
  ]);
  // a long arrow making a short class: the function's reason, not a stray
  const body = Array.from({ length: 61 }, (_, i) => `  f${i} = ${i};`).join("\n");
  assert.deepEqual(runBoth(`${REASON}\nconst make = () => class {\n${body}\n};\n`), []);
  // a short reason above both a long class and a long arrow: said once
  const both = `// long: a table\nconst make = () => ${klass(MAX_CLASS_LINES + 1, "class {")};\n`;
  assert.equal(runBoth(both).length, 1, runBoth(both).join("\n"));
  // "like a class" excuses neither the arrow nor the class: said once, by the function rule
  const like = `// long: a closure, like a class\nconst make = () => ${
    klass(MAX_CLASS_LINES + 1, "class {")
  };\n`;
  assert.deepEqual(runBoth(like).map((m) => m.split(":")[0]), ["cueport/function-length"]);
});

Deno.test("class length: it checks the program, not tests, tools or benches", () => {
  const long = `${klass(MAX_CLASS_LINES + 1)}\n`;
  for (const file of ["server/a.ts", "player/output/page/a.js", "protocol/a.ts", "lib/a.ts"]) {
    assert.equal(run(long, `${ROOT}${file}`).length, 1, file);
  }
  for (const file of ["tests/a_test.ts", "tools/a.ts", "bench/a.ts"]) {
    assert.deepEqual(run(long, `${ROOT}${file}`), [], file);
  }
});

Deno.test("class length: a CRLF file's reasons excuse as an LF file's do", () => {
  const crlf = (source: string) => source.replaceAll("\n", "\r\n");
  assert.deepEqual(run(crlf(`${REASON}\n${klass(MAX_CLASS_LINES + 1)}\n`)), []);
  assert.equal(run(crlf(`${klass(MAX_CLASS_LINES + 1)}\n`)).length, 1);
});

Deno.test("class length: a comment ignoring this rule is reported; one ignoring all, by the function rule only", () => {
  const long = `${klass(MAX_CLASS_LINES + 1)}\n`;
  for (
    const comment of [
      "// deno-lint-ignore cueport-class/length",
      "// deno-lint-ignore-file cueport-class/length",
    ]
  ) {
    assert.ok(run(`${comment}\n${long}`).some((m) => m.startsWith("Do not ignore")), comment);
  }
  const all = runBoth(`// deno-lint-ignore-file\nclass A {}\n`);
  assert.deepEqual(all.map((m) => m.split(":")[0]), ["cueport/function-length"]);
});

Deno.test("class length: deno.json loads the plugin, so `deno lint` runs it", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  assert.ok(config.lint.plugins?.includes("./tools/lint/class_length.ts"), "lint.plugins");
});

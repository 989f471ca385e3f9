/**
 * The function-length rule of the house's lint plugin
 * (tools/lint/function_length.ts, docs/architecture.md), run on sources given
 * here, and its place in deno.json.
 */
import assert from "node:assert/strict";
import { CLASS_RULE_NAME } from "../../../tools/lint/class_length.ts";
import plugin, {
  CHECKED,
  convinces,
  ignoresRule,
  isChecked,
  MAX_BODY_LINES,
  RULE_NAME,
} from "../../../tools/lint/function_length.ts";

/** The repository, decoded as Deno names a linted file (a space stays a space). */
const ROOT = decodeURIComponent(new URL("../../../", import.meta.url).pathname);
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

Deno.test("function length: a reason that only says 'like a class' does not excuse it", () => {
  const body = `{\n${statements(MAX_BODY_LINES + 5)}\n}\n`;
  assert.deepEqual(run(`// long: closure, like a class\nconst make = () => ${body}`), [
    `The reason of this ${MAX_BODY_LINES + 5}-line function says too little: ` +
    `"closure, like a class".`,
  ]);
  assert.ok(!convinces("closure, like a class") && !convinces("a table"));
  assert.ok(convinces("one case per message kind, read as a table"));
});

Deno.test("function length: a reason above no long function fails, so that none outlives its function", () => {
  const stale = run(`// long: it used to be a long switch\nfunction a() {\n  return 1;\n}\n`);
  assert.deepEqual(stale, [
    `This "// long:" comment is not on the line above a function over ${MAX_BODY_LINES} lines.`,
  ]);
});

Deno.test("function length: it checks the program, not tests, tools or benches", () => {
  const long = `function a() {\n${statements(MAX_BODY_LINES + 1)}\n}\n`;
  for (
    const file of ["main.ts", "server/a.ts", "player/output/page/a.js", "protocol/a.ts", "lib/a.ts"]
  ) {
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

Deno.test("function length: a CRLF file's reasons excuse as an LF file's do", () => {
  const crlf = (source: string) => source.replaceAll("\n", "\r\n");
  const body = `{\n${statements(MAX_BODY_LINES + 1)}\n}\n`;
  const reason = "// long: one case per message kind, read as a table";
  assert.deepEqual(run(crlf(`${reason}\nfunction a() ${body}`)), []);
  assert.deepEqual(run(crlf(`// long: a table\nfunction a() ${body}`)), [
    `The reason of this ${MAX_BODY_LINES + 1}-line function says too little: "a table".`,
  ]);
  assert.equal(run(crlf(`function a() ${body}`)).length, 1);
});

Deno.test("function length: a comment ignoring the rule is reported, file-wide or on a line", () => {
  const long = `function a() {\n${statements(MAX_BODY_LINES + 1)}\n}\n`;
  const ignoring = [
    "// deno-lint-ignore cueport/function-length",
    "// deno-lint-ignore no-explicit-any cueport/function-length",
    "// deno-lint-ignore",
    "// deno-lint-ignore-file",
    "// deno-lint-ignore-file cueport/function-length",
  ];
  for (const comment of ignoring) {
    const messages = run(`${comment}\n${long}`);
    assert.ok(messages.some((m) => m.startsWith("Do not ignore")), `${comment}: ${messages}`);
  }
  for (
    const comment of ["// deno-lint-ignore no-explicit-any", "// deno-lint-ignore-file no-var"]
  ) {
    assert.deepEqual(run(`${comment}\nfunction a() {}\n`), [], comment);
  }
});

/** `deno lint` (the real one, with deno.json) run in `dir`: its diagnostics' codes and files. */
async function denoLint(dir: string): Promise<{ code: string; filename: string }[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["lint", "--json"],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  return JSON.parse(text).diagnostics.map((d: { code: string; filename: string }) => ({
    code: d.code,
    filename: d.filename,
  }));
}

Deno.test("function length: `deno lint` checks a repository whose path has a space and non-ASCII", async () => {
  const temp = await Deno.makeTempDir();
  const repo = `${temp}/show caf\u00e9`;
  try {
    await Deno.mkdir(`${repo}/tools/lint`, { recursive: true });
    await Deno.mkdir(`${repo}/server`);
    await Deno.copyFile(
      `${ROOT}tools/lint/function_length.ts`,
      `${repo}/tools/lint/function_length.ts`,
    );
    const config = { lint: { plugins: ["./tools/lint/function_length.ts"] } };
    await Deno.writeTextFile(`${repo}/deno.json`, JSON.stringify(config));
    const long = `export function a(f: (n: number) => void) {\n${
      statements(MAX_BODY_LINES + 1)
    }\n}\n`;
    await Deno.writeTextFile(`${repo}/server/long.ts`, long);
    await Deno.writeTextFile(`${repo}/server/ignored.ts`, `// deno-lint-ignore-file\n${long}`);
    const found = await denoLint(repo);
    const ours = found.filter((d) => d.code === "cueport/function-length");
    // A file-wide ignore silences even the report of itself: the next test looks for one.
    assert.deepEqual(
      ours.map((d) => d.filename.replace(/.*[\\/]/, "")).sort(),
      ["long.ts"],
      JSON.stringify(found),
    );
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
});

/** The program's source files (those the rule checks), relative to the repository. */
async function* programFiles(path: string): AsyncGenerator<string> {
  const info = await Deno.stat(`${ROOT}${path}`);
  if (!info.isDirectory) {
    if (/\.(ts|js)$/.test(path)) yield path;
    return;
  }
  for await (const entry of Deno.readDir(`${ROOT}${path}`)) {
    yield* programFiles(`${path.replace(/\/$/, "")}/${entry.name}`);
  }
}

/** Both house rules: an ignore of either, file-wide, would hide it from `deno lint`. */
const RULES = [RULE_NAME, CLASS_RULE_NAME];

Deno.test("function and class length: no file of the program ignores either rule file-wide (`deno lint` would hide it)", async () => {
  const found: string[] = [];
  for (const path of CHECKED) {
    for await (const file of programFiles(path)) {
      const text = await Deno.readTextFile(`${ROOT}${file}`);
      for (
        const [comment] of text.matchAll(
          /\/\/\s*deno-lint-ignore-file[^\r\n]*|\/\*\s*deno-lint-ignore-file[^*]*/g,
        )
      ) {
        const text = comment.replace(/^\/[/*]/, "");
        if (RULES.some((rule) => ignoresRule(text, rule))) found.push(`${file}: ${comment}`);
      }
    }
  }
  assert.deepEqual(found, []);
  assert.ok(ignoresRule(" deno-lint-ignore-file") && !ignoresRule(" deno-lint-ignore-file no-var"));
  assert.ok(ignoresRule(` deno-lint-ignore-file ${CLASS_RULE_NAME}`, CLASS_RULE_NAME));
});

/**
 * The check's bounds count work: a check given a tiny budget is cut by it
 * with a message that names the bound and what to change, the same every
 * time; real shaders (the built-ins, five of ISF-Files) keep their verdicts
 * within the bounds; code that expands without bound is cut by work.
 */
import assert from "node:assert/strict";
import {
  ISF_CHECK_BOUNDS,
  type IsfCheckBounds,
  WorkBoundReached,
  WorkBudget,
} from "../../../player/isf/bounds.ts";
import { describeProblem, parseIsf } from "../../../player/isf/mod.ts";
import { BUILT_IN_PRESETS } from "../../../player/presets.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

/** ISF-Files shaders: the `load` probe's corpus, and Median (most macros) kept here. */
const CORPUS = new URL("../../../tools/reliability/isf_corpus/", import.meta.url);
const ISF_FILES = [
  new URL("Broken LCD.fs", CORPUS),
  new URL("Dither-Bayer.fs", CORPUS),
  new URL("Stylize Glitch.fs", CORPUS),
  new URL("Time Glitch RGB.fs", CORPUS),
  new URL("./fixtures/isf_files/median.fs", import.meta.url),
];

/** INVERT with `lines` before its main(). */
function withLines(...lines: string[]): string {
  return INVERT.replace("void main() {", `${lines.join("\n")}\nvoid main() {`);
}

/** The one problem of checking `code` with `bounds`, checked twice: the same both times. */
function cutBy(code: string, bounds: Partial<IsfCheckBounds>): string {
  const first = parseIsf(code, "effect", { bounds });
  assert.deepEqual(parseIsf(code, "effect", { bounds }), first, "the same verdict twice");
  assert.equal(first.ok, false);
  const problems = first.ok ? [] : first.problems;
  assert.equal(problems.length, 1, JSON.stringify(problems));
  return describeProblem(problems[0]!);
}

Deno.test("parseIsf() cuts a check at each bound of its work, naming it and what to change", () => {
  const macro = withLines("#define TWICE(x) (x + x)", "float twice = TWICE(TWICE(1.0));");
  const cases: Array<[Partial<IsfCheckBounds>, string, string]> = [
    [{ codeCharacters: 100 }, INVERT, "the code is over 100 characters: make it shorter"],
    [{ macros: 0 }, macro, "the code defines over 0 macros (#define): define fewer"],
    [{ macroExpansions: 1 }, macro, "its macros expand over 1 times"],
    [{ expandedCharacters: 10 }, macro, "its macros expand to over 10 characters"],
    [{ tokens: 20 }, INVERT, "with its macros expanded, the code has over 20 tokens"],
    [{ parseSteps: 50 }, INVERT, "parsing the code takes over 50 steps: make it shorter"],
  ];
  for (const [bounds, code, message] of cases) {
    const said = cutBy(code, bounds);
    assert.match(said, /^line 1, column 1: the check stopped at its bound: /, said);
    assert.ok(said.includes(message), `${JSON.stringify(bounds)}: ${said}`);
  }
});

Deno.test("parseIsf() names the line where brackets nest past the bound", () => {
  const code = withLines("float deep = ((((1.0))));");
  const line = code.split("\n").findIndex((l) => l.startsWith("float deep")) + 1;
  assert.equal(
    cutBy(code, { nesting: 3 }),
    `line ${line}, column 17: the check stopped at its bound: brackets nest over 3 deep: nest less`,
  );
});

Deno.test("parseIsf() cuts a macro that expands without bound by work, at the default bounds", () => {
  const bomb = withLines(
    "#define A(x) x+x",
    "#define B(x) A(A(A(A(x))))",
    "#define C(x) B(B(B(B(x))))",
    "float bomb = C(C(C(1.0)));",
  );
  assert.match(cutBy(bomb, {}), /the check stopped at its bound: its macros expand (over|to over)/);
});

Deno.test("parseIsf() keeps the built-ins' and ISF-Files' verdicts within its bounds", async () => {
  for (const preset of BUILT_IN_PRESETS) {
    const result = parseIsf(preset.code, preset.kind);
    assert.ok(result.ok, `${preset.id}: ${JSON.stringify(!result.ok && result.problems)}`);
  }
  for (const file of ISF_FILES) {
    const code = await Deno.readTextFile(file);
    const result = parseIsf(code, "effect");
    assert.ok(result.ok, `${file.pathname}: ${JSON.stringify(!result.ok && result.problems)}`);
  }
});

Deno.test("WorkBudget hears progress every 1024 units and throws past a bound", () => {
  const heard: number[] = [];
  const budget = new WorkBudget({ tokens: 5000 }, (work) => heard.push(work));
  for (let i = 0; i < 5000; i++) budget.spend("tokens");
  assert.deepEqual(heard, [1024, 2048, 3072, 4096]);
  assert.throws(() => budget.spend("tokens"), WorkBoundReached);
  assert.equal(budget.bounds.parseSteps, ISF_CHECK_BOUNDS.parseSteps);
});

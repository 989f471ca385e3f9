/**
 * Validation time of ISF preset code (issue 33, phase 1): `parseIsf` on each
 * built-in preset's shader and on the docs' invert effect, which is what a
 * preset edit spends on its code (header, inputs, the GLSL parsed without a
 * GPU); the header alone beside it, to show the GLSL parser's share. The GL
 * compile in the renderer comes with phase 2.
 *
 * Then the ISF community's collection (`tests/fixtures/isf_files/`, 321 `.fs`): each file checked
 * once by `parseIsf` as `preset.validate` checks it (without the process it runs in), the median
 * and the longest, and the count accepted; then glslang's compile of each (the check's compiler,
 * `player/isf/glsl_types.ts`), its median and longest, and its first compile in a process.
 *
 * `deno run --allow-read bench/isf_bench.ts [--runs 200]`
 * @module
 */
import { parseArgs } from "node:util";
import { isfHeaderParameters, isfKindOf, parseIsf, passSizes } from "../player/isf/mod.ts";
import { BUILT_IN_PRESETS } from "../player/presets.ts";
import { glslangSource, loadGlslang, typeProblems } from "../player/isf/glsl_types.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "200" } },
});
const RUNS = Number(values.runs);

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** p50 and p99 of `RUNS` calls of `once`, in ms. */
function measure(once: () => void): { p50: number; p99: number } {
  for (let i = 0; i < 20; i++) once(); // warm up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    once();
    times.push(performance.now() - t);
  }
  return { p50: pct(times, 0.5), p99: pct(times, 0.99) };
}

/** `Invert.fs` of docs/presets.md (the doc's first glsl block), then its two-pass blur. */
const doc = await Deno.readTextFile(new URL("../docs/presets.md", import.meta.url));
const [invert, blur] = [...doc.matchAll(/```glsl\n([\s\S]*?)```/g)].map((m) => m[1]!);

const shaders = [
  ...BUILT_IN_PRESETS.map((p) => ({ name: p.id, code: p.code, kind: p.kind })),
  { name: "invert (docs)", code: invert!, kind: "effect" as const },
  { name: "2-pass (docs)", code: blur!, kind: "effect" as const },
];
const ms = (n: number) => `${n.toFixed(2)} ms`;
console.log(`ISF validation, ${RUNS} runs each (p50 / p99)`);
for (const { name, code, kind } of shaders) {
  if (!parseIsf(code, kind).ok) throw new Error(`${name} does not validate`);
  const full = measure(() => parseIsf(code, kind));
  const header = measure(() => isfHeaderParameters(code));
  console.log(
    `${name.padEnd(16)} parseIsf ${ms(full.p50)} / ${ms(full.p99)}   header only ${
      ms(header.p50)
    } / ${ms(header.p99)}`,
  );
}

// What every render state costs an Effect with PASSES: its targets' sizes from the expressions.
const passes = parseIsf(blur!, "effect");
if (!passes.ok) throw new Error("the two-pass blur does not validate");
const sizes = measure(() => {
  for (let i = 0; i < 1000; i++) {
    passSizes(passes.program.header, { values: {}, width: 1920, height: 1080 });
  }
});
const us = (n: number) => `${n.toFixed(2)} us`;
console.log(
  `2-pass (docs)    passSizes ${us(sizes.p50)} / ${
    us(sizes.p99)
  } (each render state; 1000 calls timed)`,
);

// The collection: one check a file, as an edit checks it (in its process: not counted here), then
// glslang's compile of what the output draws (in the player's compiler process: here in this one,
// loaded and warmed first: its first compile builds its tables, timed apart).
const collection = new URL("../tests/fixtures/isf_files/", import.meta.url);
const names = [...Deno.readDirSync(collection)].map((e) => e.name).filter((n) => n.endsWith(".fs"));
const perFile: Array<{ name: string; ms: number }> = [];
const compiles: Array<{ name: string; ms: number }> = [];
const firstStart = performance.now();
const compile = await loadGlslang();
compile(glslangSource(parseIsfLiftedOrOwn(invert!)!, true));
const first = performance.now() - firstStart;
let accepted = 0;
for (const name of names.sort()) {
  const code = Deno.readTextFileSync(new URL(encodeURIComponent(name), collection));
  const t = performance.now();
  const result = parseIsf(code, isfKindOf(code));
  perFile.push({ name, ms: performance.now() - t });
  if (!result.ok) continue;
  const { lifted, fragment, lineOffset } = result.program;
  const source = glslangSource((lifted ?? { fragment }).fragment, lifted !== null);
  const c = performance.now();
  const log = compile(source);
  compiles.push({ name, ms: performance.now() - c });
  if (typeProblems(log, code, (lifted ?? { lineOffset }).lineOffset).length === 0) accepted++;
}
/** Median and slowest of `times`, as text. */
function summary(times: Array<{ name: string; ms: number }>): string {
  const slowest = times.reduce((a, b) => (b.ms > a.ms ? b : a));
  return `median ${ms(pct(times.map((f) => f.ms), 0.5))}, max ${ms(slowest.ms)} (${slowest.name})`;
}
console.log(
  `ISF-Files (${perFile.length} .fs, ${accepted} accepted): validation ${summary(perFile)}`,
);
console.log(
  `glslang compile of the ${compiles.length} that pass the parse: ${
    summary(compiles)
  }; its process's first compile ${ms(first)}`,
);

/** The sources glslang compiles for `code`: its lifted ones, else its own. */
function parseIsfLiftedOrOwn(code: string): string | null {
  const result = parseIsf(code, isfKindOf(code));
  return result.ok ? (result.program.lifted ?? result.program).fragment : null;
}

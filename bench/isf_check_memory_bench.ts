/**
 * The player's memory and time across ISF checks: `count` checks of one code in a
 * row (`parseIsfApart`, as `preset.validate` runs them), this process's RSS before and
 * after, the time of the first check (its process started: cold) and the median of the
 * others (in a kept process: warm), and the processes started. Codes: `big` (200 KB: refused at once by the character
 * bound), `invert` (a small shader that passes), `heavy` (48 KB of declarations: the parser's memory, refused too large to check),
 * `lcd` (Broken LCD of ISF-Files: a real shader that passes).
 *
 * `deno run -A bench/isf_check_memory_bench.ts big 50`
 * @module
 */
import { parseIsfApart } from "../player/isf/mod.ts";
import { ISF_CHECKERS } from "../player/isf/checker_pool.ts";

const INVERT = `/*{ "INPUTS": [ { "NAME": "inputImage", "TYPE": "image" } ] }*/
void main() {
  vec4 c = IMG_THIS_PIXEL(inputImage);
  gl_FragColor = vec4(1.0 - c.rgb, c.a);
}
`;

const CODES: Record<string, () => Promise<string>> = {
  invert: () => Promise.resolve(INVERT),
  big: () => Promise.resolve(INVERT + "// " + "x".repeat(200_000) + "\n"),
  heavy: () =>
    Promise.resolve(
      INVERT.replace("void main() {", "float f0 = 1.0;\n".repeat(3000) + "void main() {"),
    ),
  lcd: () =>
    Deno.readTextFile(new URL("../tools/reliability/isf_corpus/Broken LCD.fs", import.meta.url)),
};

const [name = "big", count = "50"] = Deno.args;
const code = await CODES[name]!();
const rssMb = () => Math.round(Deno.memoryUsage().rss / 1024 / 1024);
const before = rssMb();
let peak = before;
const started = performance.now();
let verdict = "";
const times: number[] = [];
for (let i = 0; i < Number(count); i++) {
  const at = performance.now();
  const result = await parseIsfApart(code, "effect");
  times.push(performance.now() - at);
  verdict = result.ok ? "ok" : result.problems[0]!.message.slice(0, 60);
  peak = Math.max(peak, rssMb());
}
const ms = (performance.now() - started) / Number(count);
const warm = times.slice(1).sort((a, b) => a - b);
const median = warm.length > 0 ? warm[Math.floor(warm.length / 2)]!.toFixed(0) : "-";
console.log(
  `${name} (${code.length} chars) x${count}: RSS ${before} -> ${rssMb()} MB (peak ${peak}), ` +
    `${ms.toFixed(0)} ms a check (first ${times[0]!.toFixed(0)} ms, median of the others ` +
    `${median} ms), ${ISF_CHECKERS.started} checker processes started; ${verdict}`,
);

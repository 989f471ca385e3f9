/**
 * The player's memory and time across ISF checks: `count` checks of one code in a
 * row (`parseIsfApart`, as `preset.validate` runs them), this process's RSS before and
 * after, and the time a check. Codes: `big` (200 KB: refused at once by the character
 * bound), `heavy` (48 KB of declarations: the parser's memory, refused too large to check),
 * `lcd` (Broken LCD of ISF-Files: a real shader that passes).
 *
 * `deno run -A bench/isf_check_memory_bench.ts big 50`
 * @module
 */
import { parseIsfApart } from "../player/isf/mod.ts";

const INVERT = `/*{ "INPUTS": [ { "NAME": "inputImage", "TYPE": "image" } ] }*/
void main() {
  vec4 c = IMG_THIS_PIXEL(inputImage);
  gl_FragColor = vec4(1.0 - c.rgb, c.a);
}
`;

const CODES: Record<string, () => Promise<string>> = {
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
for (let i = 0; i < Number(count); i++) {
  const result = await parseIsfApart(code, "effect");
  verdict = result.ok ? "ok" : result.problems[0]!.message.slice(0, 60);
  peak = Math.max(peak, rssMb());
}
const ms = (performance.now() - started) / Number(count);
console.log(
  `${name} (${code.length} chars) x${count}: RSS ${before} -> ${rssMb()} MB (peak ${peak}), ` +
    `${ms.toFixed(0)} ms a check; ${verdict}`,
);

/**
 * How long the ISF check takes for the largest code its bounds allow
 * (`player/isf/bounds.ts`): for each shape, the most statements or terms
 * that pass (one more is cut, which the run checks), checked on this thread (`parseIsf`) and on a worker as an edit
 * checks it (`parseIsfApart`, its loading included). Run it quiet and under
 * load (`stress-ng --cpu 4`): the times change, the verdicts do not.
 *
 * `deno run --allow-read bench/isf_bounds_bench.ts`
 * @module
 */
import { parseIsf, parseIsfApart } from "../player/isf/mod.ts";

const HEAD = `/*{ "INPUTS": [ { "NAME": "inputImage", "TYPE": "image" } ] }*/\n`;

/** Code of `n` units in main(). */
type Shape = (n: number) => string;

/** Each shape, and the most units of it that pass (found by halving, then checked below). */
const SHAPES: Record<string, [Shape, number]> = {
  "statements (parse steps)": [
    (n) =>
      `${HEAD}void main() {\n  float x = 0.0;\n${
        "  x = x * 1.5 + sin(x);\n".repeat(n)
      }  gl_FragColor = vec4(x);\n}\n`,
    1193,
  ],
  "one long sum (tokens)": [
    (n) =>
      `${HEAD}void main() {\n  float x = 0.0${" + 1.0".repeat(n)};\n  gl_FragColor = vec4(x);\n}\n`,
    9965,
  ],
  "comments (characters)": [
    (n) => `${HEAD}void main() {\n  gl_FragColor = vec4(1.0);\n}\n${"// comment line\n".repeat(n)}`,
    4089,
  ],
};

/** Whether `code` is cut by a bound. */
function isCut(code: string): boolean {
  const result = parseIsf(code, "effect");
  return !result.ok && result.problems.some((p) => p.message.includes("stopped at its bound"));
}

const ms = (n: number) => `${n.toFixed(0)} ms`;
console.log(`ISF check of the largest code its bounds allow (load ${Deno.loadavg().join(" ")})`);
for (const [name, [shape, n]] of Object.entries(SHAPES)) {
  const code = shape(n);
  if (!isCut(shape(n + 1))) throw new Error(`${name}: ${n + 1} units are not cut: update n`);
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    if (!parseIsf(code, "effect").ok) throw new Error(`${name}: ${n} units do not pass`);
    times.push(performance.now() - t);
  }
  const t = performance.now();
  if (!(await parseIsfApart(code, "effect")).ok) throw new Error(`${name}: refused on a worker`);
  const apart = performance.now() - t;
  console.log(
    `${name.padEnd(26)} ${n} units, ${code.length} characters: parseIsf ${
      times.map(ms).join(", ")
    }; parseIsfApart ${ms(apart)}`,
  );
}
console.log(`load ${Deno.loadavg().join(" ")}`);

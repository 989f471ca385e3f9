/**
 * How long the ISF check takes for the largest code its bounds allow
 * (`player/isf/bounds.ts`): for each shape, the most statements or terms
 * that pass, checked on this thread (`parseIsf`) and on a worker as an edit
 * checks it (`parseIsfApart`, its loading included). Run it quiet and under
 * load (`stress-ng --cpu 4`): the times change, the verdicts do not.
 *
 * `deno run --allow-read bench/isf_bounds_bench.ts`
 * @module
 */
import { type IsfCheckBounds, parseIsf, parseIsfApart } from "../player/isf/mod.ts";

const HEAD = `/*{ "INPUTS": [ { "NAME": "inputImage", "TYPE": "image" } ] }*/\n`;

/** Code of `n` units in main(). */
type Shape = (n: number) => string;

const SHAPES: Record<string, Shape> = {
  "statements (parse steps)": (n) =>
    `${HEAD}void main() {\n  float x = 0.0;\n${
      "  x = x * 1.5 + sin(x);\n".repeat(n)
    }  gl_FragColor = vec4(x);\n}\n`,
  "one long sum (tokens)": (n) =>
    `${HEAD}void main() {\n  float x = 0.0${" + 1.0".repeat(n)};\n  gl_FragColor = vec4(x);\n}\n`,
  "comments (characters)": (n) =>
    `${HEAD}void main() {\n  gl_FragColor = vec4(1.0);\n}\n${"// comment line\n".repeat(n)}`,
};

/** Whether `code` is cut by a bound (`bounds` in place of the defaults). */
function isCut(code: string, bounds: Partial<IsfCheckBounds> = {}): boolean {
  const result = parseIsf(code, "effect", { bounds });
  return !result.ok && result.problems.some((p) => p.message.includes("stopped at its bound"));
}

/** The most units of `shape` that pass, found by halving (cheap: a cut check stops early). */
function largest(shape: Shape): number {
  let [lo, hi] = [0, 1];
  while (!isCut(shape(hi))) [lo, hi] = [hi, hi * 2];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (isCut(shape(mid))) hi = mid;
    else lo = mid;
  }
  return lo;
}

const ms = (n: number) => `${n.toFixed(0)} ms`;
console.log(`ISF check of the largest code its bounds allow (load ${Deno.loadavg().join(" ")})`);
for (const [name, shape] of Object.entries(SHAPES)) {
  const n = largest(shape);
  const code = shape(n);
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

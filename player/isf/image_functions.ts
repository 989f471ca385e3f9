/**
 * ISF's image functions (`IMG_THIS_PIXEL`, `IMG_NORM_PIXEL`, `IMG_PIXEL`,
 * `IMG_SIZE`) expanded to GLSL in the user's code, keeping its lines and
 * columns where nothing is expanded.
 * @module
 */
import { type IsfProblem, problemAt } from "./problems.ts";

/** The `IMG_*` functions, made with the version's sampling function (`texture2D`, `texture`). */
type ImageFunctions = Record<string, { args: number; make: (a: string[]) => string }>;

function imageFunctions(sample: string): ImageFunctions {
  return {
    IMG_THIS_PIXEL: { args: 1, make: ([img]) => `${sample}(${img}, isf_FragNormCoord)` },
    IMG_THIS_NORM_PIXEL: { args: 1, make: ([img]) => `${sample}(${img}, isf_FragNormCoord)` },
    IMG_NORM_PIXEL: { args: 2, make: ([img, at]) => `${sample}(${img},${at})` },
    IMG_PIXEL: {
      args: 2,
      make: ([img, at]) => `${sample}(${img}, (${at}) / _${img?.trim()}_imgSize)`,
    },
    IMG_SIZE: { args: 1, make: ([img]) => `_${img?.trim()}_imgSize` },
  };
}

/**
 * `IMG_*` calls of `code` replaced by GLSL that samples with `sample`
 * (`texture2D`, or `texture` in ES 3.00); comments skipped; arguments kept as
 * written, calls nested in them expanded; an unknown image or a wrong count of
 * arguments is a problem at its offset.
 */
export function expandImageFunctions(
  code: string,
  samplers: ReadonlySet<string>,
  sample: string,
): { text: string } | IsfProblem[] {
  const problems: IsfProblem[] = [];
  const scope = { samplers, functions: imageFunctions(sample), problems };
  const text = expandRange(code, 0, code.length, scope);
  return problems.length > 0 ? problems : { text };
}

/** What an expansion reads and where it puts problems. */
interface Expansion {
  readonly samplers: ReadonlySet<string>;
  readonly functions: ImageFunctions;
  readonly problems: IsfProblem[];
}

/** Expands `code[from, to)`, calls nested in arguments included; problems at their offsets. */
function expandRange(code: string, from: number, to: number, scope: Expansion): string {
  const { samplers, functions, problems } = scope;
  let out = "";
  let i = from;
  while (i < to) {
    const skip = Math.min(commentEnd(code, i), to);
    if (skip > i) {
      out += code.slice(i, skip);
      i = skip;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(code.slice(i, Math.min(i + 64, to)))?.[0];
    if (!word) {
      out += code[i++];
      continue;
    }
    const fn = Object.hasOwn(functions, word) ? functions[word] : undefined;
    const open = code.slice(i + word.length, to).search(/\S/) + i + word.length;
    if (!fn || code[open] !== "(") {
      out += word;
      i += word.length;
      continue;
    }
    const call = callArguments(code, open, to);
    if (!call) {
      problems.push(problemAt(code, i, `${word}( is not closed`));
      return out + code.slice(i, to);
    }
    const img = code.slice(call.args[0]?.[0], call.args[0]?.[1]).trim();
    if (call.args.length !== fn.args) {
      problems.push(problemAt(code, i, `${word} takes ${fn.args} argument(s)`));
    } else if (!samplers.has(img)) {
      problems.push(problemAt(code, i, `${word}: "${img}" is not an image or audio input`));
    }
    out += fn.make(call.args.map(([a, b]) => expandRange(code, a, b, scope)));
    i = call.end;
  }
  return out;
}

function commentEnd(code: string, i: number): number {
  if (code.startsWith("//", i)) {
    const nl = code.indexOf("\n", i);
    return nl < 0 ? code.length : nl;
  }
  if (code.startsWith("/*", i)) {
    const close = code.indexOf("*/", i + 2);
    return close < 0 ? code.length : close + 2;
  }
  return i;
}

function callArguments(
  code: string,
  open: number,
  to: number,
): { args: [number, number][]; end: number } | null {
  const args: [number, number][] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < to; i++) {
    const c = code[i];
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) {
      args.push([start, i]);
      return { args, end: i + 1 };
    } else if (c === "," && depth === 1) {
      args.push([start, i]);
      start = i + 1;
    }
  }
  return null;
}

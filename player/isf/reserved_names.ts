/**
 * Names the check keeps for itself, so that the code it caps cannot undo the
 * cap: the loop guard (`loop_cap.ts`) counts on `isf_loopIterations`, and a
 * local, a parameter, a field or a macro of that name would have it count on
 * the user's variable instead. Every `isf_` name but `isf_FragNormCoord` (the
 * pixel's position, for the code to read) is reserved: any use of one in the
 * code as written (a directive's too, a name a line continuation splits too;
 * comments aside) is a problem at its place, and so is a macro named after a
 * word of the guard (`if`, `break`).
 * @module
 */
import { LOOP_COUNTER } from "./loop_cap.ts";
import { type IsfProblem, problemAt } from "./problems.ts";

/** The `isf_` names the code may use (the declarations give them). */
const USABLE = new Set(["isf_FragNormCoord"]);

/** The words of the loop guard other than its counter: no macro may take their names. */
const GUARD_WORDS = new Set(["if", "break"]);

/** Whether `name` is one the check keeps for itself. */
export function isReservedName(name: string): boolean {
  return name.startsWith("isf_") && !USABLE.has(name);
}

/**
 * Problems of `code` (its header blanked: the user's lines and columns) that use a
 * reserved name, or define or undefine a macro named after a word of the loop guard.
 */
export function reservedNameProblems(code: string): IsfProblem[] {
  const { text, original } = spliced(code);
  // Comments blanked in place (same offsets), so that a name in a comment is none.
  const bare = text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (c) => c.replace(/[^\n]/g, " "));
  const problems: IsfProblem[] = [];
  for (const name of bare.matchAll(/\b[A-Za-z_][A-Za-z0-9_]*/g)) {
    if (!isReservedName(name[0])) continue;
    const what = name[0] === LOOP_COUNTER ? "the loop cap" : "ISF";
    const message = `'${name[0]}' is reserved by ${what}: rename it`;
    problems.push(problemAt(code, original(name.index), message));
  }
  for (const macro of bare.matchAll(/^[ \t]*#[ \t]*(?:define|undef)[ \t]+([A-Za-z_]\w*)/gm)) {
    if (!GUARD_WORDS.has(macro[1]!)) continue;
    const word = macro[1];
    const message =
      `a macro named '${word}' would change the loop cap's guard (if (...) break;): name it otherwise`;
    problems.push(problemAt(code, original(macro.index + macro[0].indexOf("#")), message));
  }
  return problems.sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * `code` with its line continuations (a backslash ending a line) joined, as the GL's
 * preprocessor joins them before it reads a name, and what maps an offset of that text
 * back to `code`'s.
 */
function spliced(code: string): { text: string; original: (offset: number) => number } {
  const joins: Array<{ at: number; length: number }> = []; // `at`: in the joined text
  let removed = 0;
  const text = code.replace(/\\\r?\n/g, (match, at: number) => {
    joins.push({ at: at - removed, length: match.length });
    removed += match.length;
    return "";
  });
  return {
    text,
    original: (offset) =>
      joins.reduce((sum, join) => sum + (join.at <= offset ? join.length : 0), offset),
  };
}

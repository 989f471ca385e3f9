/**
 * Every loop of a preset's shader bounded: the check finds each `for`, `while`
 * and `do` loop in the parsed syntax tree (`glsl_check.ts` parses the code
 * with its macros expanded) and the sources the output compiles get, at the
 * start of each loop's body, `if (++isf_loopIterations > LOOP_CAP) break;`.
 * `isf_loopIterations` is a global the declarations give (`glsl.ts`): a
 * fragment shader's globals are each invocation's own and start at 0, so all
 * the loops of one invocation (those of the functions `main` calls too, and
 * nested ones, which cannot multiply it) share one budget of LOOP_CAP
 * iterations; past it every loop stops at its next iteration and the pixel is
 * what the shader made of it so far. GLSL has no recursion and no `goto`, so
 * a shader whose loops are capped ends.
 *
 * The insertions go into the code as written, on the lines of the loops (no
 * line is added), so the GL's log maps back to the user's lines as before. A
 * position in the expanded code is found in the code as written by its line's
 * `/*@<n>*\/` mark and the text before it (or after it) on that line; a loop
 * whose body starts or ends inside a macro's expansion cannot be placed so,
 * and is a problem that says to write that loop out.
 * @module
 */
import { LOOP_CAP } from "./bounds.ts";
import type { GlslProgram } from "./glsl_counted.ts";
import type { IsfProblem } from "./problems.ts";

/** The global the loops count their iterations on (declared by `fragmentSource`). */
export const LOOP_COUNTER = "isf_loopIterations";

/** What the start of each loop body gets. */
export const LOOP_GUARD = `if (++${LOOP_COUNTER} > ${LOOP_CAP}) break; `;

/** Text to insert in the user's code: before `column` (0-based) of user line `line` (1-based). */
export interface CodeInsertion {
  readonly line: number;
  readonly column: number;
  readonly text: string;
}

/** Where a node sits in the parsed (expanded, marked) text. */
interface Located {
  readonly type?: string;
  readonly location?: { start: { offset: number }; end: { offset: number } };
  readonly [key: string]: unknown;
}

const LOOPS = new Set(["for_statement", "while_statement", "do_statement"]);

/**
 * The insertions that cap every loop of `program` (parsed from `text`, the
 * marked and expanded form of `fragment`, whose user line 1 is line
 * `lineOffset + 1`), or the problems of loops that cannot be capped.
 */
export function loopCaps(
  program: GlslProgram,
  text: string,
  fragment: string,
  lineOffset: number,
): CodeInsertion[] | IsfProblem[] {
  const place = placer(text, fragment, lineOffset);
  const insertions: CodeInsertion[] = [];
  const problems: IsfProblem[] = [];
  for (const loop of loopsOf(program.program)) {
    const body = loop.body as Located;
    const isCompound = body.type === "compound_statement";
    const start = isCompound ? offsetOf(body.lb) + 1 : offsetOf(body);
    const end = isCompound ? null : endOf(body);
    const first = place(start);
    const last = end === null ? null : place(end);
    if (first === null || (!isCompound && last === null)) {
      problems.push(unplaced(text, lineOffset, offsetOf(loop)));
      continue;
    }
    insertions.push({
      ...first,
      text: isCompound ? ` ${LOOP_GUARD.trimEnd()}` : `{ ${LOOP_GUARD}`,
    });
    if (last) insertions.push({ ...last, text: " }" });
  }
  return problems.length > 0 ? problems : insertions;
}

/** `source` (whose user line 1 is line `lineOffset + 1`) with `insertions` made. */
export function withInsertions(
  source: string,
  lineOffset: number,
  insertions: readonly CodeInsertion[],
): string {
  if (insertions.length === 0) return source;
  const lines = source.split("\n");
  // From the last to the first, so that each column is still that of the code as written.
  const ordered = [...insertions].sort((a, b) => b.line - a.line || b.column - a.column);
  for (const { line, column, text } of ordered) {
    const index = line - 1 + lineOffset;
    const was = lines[index] ?? "";
    lines[index] = was.slice(0, column) + text + was.slice(column);
  }
  return lines.join("\n");
}

/** Every loop in `node`'s tree, outer ones first. */
function loopsOf(node: unknown, found: Located[] = []): Located[] {
  if (Array.isArray(node)) {
    for (const child of node) loopsOf(child, found);
    return found;
  }
  if (typeof node !== "object" || node === null) return found;
  const fields = node as Located;
  if (LOOPS.has(fields.type ?? "")) found.push(fields);
  for (const [key, value] of Object.entries(fields)) {
    if (key !== "location" && typeof value === "object") loopsOf(value, found);
  }
  return found;
}

function offsetOf(node: unknown): number {
  return (node as Located).location?.start.offset ?? -1;
}

/**
 * The offset just after a statement's last token (a node's end takes in the
 * space and comments after it), or null for a statement of another kind.
 */
function endOf(node: Located): number | null {
  if ("semi" in node) return offsetOf(node.semi) + 1;
  if ("rb" in node) return offsetOf(node.rb) + 1;
  if (node.type === "if_statement") {
    const otherwise = node.else as unknown[] | null | undefined;
    const last = otherwise?.length ? otherwise[otherwise.length - 1] : node.body;
    return endOf(last as Located);
  }
  if (node.type === "for_statement" || node.type === "while_statement") {
    return endOf(node.body as Located);
  }
  return null;
}

/** Maps an offset of the marked, expanded `text` to the user's line and column, or null. */
export function placer(
  text: string,
  fragment: string,
  lineOffset: number,
): (offset: number) => { line: number; column: number } | null {
  const textLines = text.split("\n");
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  const written = fragment.split("\n");
  return (offset: number): { line: number; column: number } | null => {
    if (offset < 0) return null;
    let index = starts.length - 1;
    while (starts[index]! > offset) index--;
    const marked = markOf(textLines, index);
    if (!marked) return null;
    const column = offset - starts[index]! - marked.markLength;
    const expanded = (textLines[index] ?? "").slice(marked.markLength);
    const original = written[marked.line - 1] ?? "";
    const before = expanded.slice(0, column);
    const after = expanded.slice(column);
    const line = marked.line - lineOffset;
    if (line < 1) return null;
    if (original.startsWith(before)) return { line, column };
    if (original.endsWith(after)) return { line, column: original.length - after.length };
    return null;
  };
}

/** The fragment line of `textLines[index]` by its mark (or the nearest above), and its mark's length. */
function markOf(
  textLines: readonly string[],
  index: number,
): { line: number; markLength: number } | null {
  for (let i = index; i >= 0; i--) {
    const mark = /^\/\*@(\d+)\*\//.exec(textLines[i] ?? "");
    if (!mark) continue;
    return { line: Number(mark[1]) + (index - i), markLength: i === index ? mark[0].length : 0 };
  }
  return null;
}

/** The problem of a loop whose body cannot be placed in the code as written. */
function unplaced(text: string, lineOffset: number, at: number): IsfProblem {
  const index = text.slice(0, Math.max(0, at)).split("\n").length - 1;
  const marked = markOf(text.split("\n"), index);
  const line = Math.max(1, (marked?.line ?? 1) - lineOffset);
  return {
    line,
    column: 1,
    message:
      `a loop whose body a macro writes cannot be bounded (every loop gets a cap of ${LOOP_CAP} iterations at the start of its body): write this loop's body out, without a macro around its braces`,
  };
}

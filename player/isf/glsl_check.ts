/**
 * The GLSL of an ISF shader checked without a GPU, so that a bad shader is
 * refused where no output runs: ShaderFrog's `@shaderfrog/glsl-parser` (a
 * maintained PEG parser of GLSL ES 1.00 and 3.00 with its preprocessor, used
 * by the ShaderFrog editor) parses the fragment source `fragmentSource`
 * builds; a syntax error and a name that is declared nowhere (the usual
 * typo) are problems at the user's line and column. Types, overloads and
 * everything else a compiler checks are left to the GL compile in the
 * renderer, whose log `mapCompileLog` maps the same way.
 *
 * The preprocessor drops directive lines and joins nothing else, so each
 * line of code gets a `/*@<n>*\/` comment first (kept through preprocessing)
 * that says which line of the source it was.
 * @module
 */
import { boundProblem, WorkBoundReached, type WorkBudget } from "./bounds.ts";
import { countedParse, countedPreprocess, countTokens, type GlslProgram } from "./glsl_counted.ts";
import { type CodeInsertion, loopCaps } from "./loop_cap.ts";
import type { IsfProblem } from "./problems.ts";

/**
 * Functions of GLSL ES 1.00 (and the extensions WebGL offers) that the
 * parser's list, written for desktop GLSL, lacks; the GL compile judges them.
 */
const ES_FUNCTIONS = new Set([
  "texture2DProj",
  "texture2DLod",
  "texture2DProjLod",
  "textureCubeLod",
]);

/** Where a parser error or a name sits in the preprocessed text. */
interface At {
  readonly line: number;
  readonly column: number;
}

/** What the check of a fragment source found. */
export interface GlslCheck {
  /** Problems at the user's lines (none: the code passed). */
  readonly problems: IsfProblem[];
  /** What caps every loop of the code (`loop_cap.ts`), in the user's lines and columns. */
  readonly loopCaps: CodeInsertion[];
  /** A vertex shader's varyings (`varying`, ES 3.00's `out`): a fragment may read these. */
  readonly varyings?: string[];
}

/** Which shader a source is: a fragment (by default) or a preset's own vertex shader. */
export interface GlslStage {
  /** `vertex`: its varyings are listed (`GlslCheck.varyings`), not refused. */
  readonly stage?: "fragment" | "vertex";
  /** The varyings the preset's vertex shader sets, which its fragment may read. */
  readonly varyings?: ReadonlySet<string>;
}

/**
 * Checks `fragment` (whose user line 1 is line `lineOffset + 1`; `written`, the code as the
 * user wrote it, when there is one): its problems at the user's lines, its work counted on
 * `budget` (a bound reached is one problem), and what caps its loops.
 */
export function checkGlsl(
  fragment: string,
  lineOffset: number,
  budget: WorkBudget,
  written?: string,
  stage: GlslStage = {},
): GlslCheck {
  const found = glslProblems(fragment, lineOffset, budget, written, stage);
  if (Array.isArray(found)) return { problems: found, loopCaps: [] };
  const caps = loopCaps(found.program, found.text, fragment, lineOffset);
  const isProblems = caps.length > 0 && "message" in caps[0]!;
  const varyings = stage.stage === "vertex"
    ? { varyings: topLevelVaryings(found.program, "out").map((v) => v.name) }
    : {};
  return isProblems
    ? { problems: caps as IsfProblem[], loopCaps: [] }
    : { problems: [], loopCaps: caps as CodeInsertion[], ...varyings };
}

/**
 * Problems of `fragment` (whose user line 1 is line `lineOffset + 1`), at the
 * user's lines, or the parsed program and its text when there are none; its
 * work counted on `budget` (a bound reached is one problem).
 */
function glslProblems(
  fragment: string,
  lineOffset: number,
  budget: WorkBudget,
  written = fragment.split("\n").slice(lineOffset).join("\n"),
  stage: GlslStage = {},
): IsfProblem[] | { program: GlslProgram; text: string } {
  const marked = markLines(fragment);
  let text: string;
  try {
    text = countedPreprocess(marked, { GL_ES: "1" }, budget);
  } catch (error) {
    if (error instanceof WorkBoundReached || error instanceof RangeError) return [cut(error)];
    const at = locationOf(error);
    return [placed(marked.split("\n"), lineOffset, at, `GLSL preprocessor: ${firstLine(error)}`)];
  }
  const lines = text.split("\n");
  let program: GlslProgram;
  try {
    countTokens(text, budget);
    program = countedParse(text, budget);
  } catch (error) {
    if (error instanceof WorkBoundReached && error.offset !== null) {
      return [placed(lines, lineOffset, offsetAt(text, error.offset), error.message)];
    }
    if (error instanceof WorkBoundReached || error instanceof RangeError) return [cut(error)];
    const lineEnd = missingSemicolon(text, error);
    if (lineEnd) {
      const problem = placed(
        lines,
        lineOffset,
        lineEnd,
        "GLSL syntax: ';' expected at the end of the line",
      );
      // The column from the line as written (an IMG_* call rewritten there is longer).
      const line = written.split("\n")[problem.line - 1] ?? "";
      return [{ ...problem, column: line.replace(/\/\/.*$/, "").trimEnd().length + 1 }];
    }
    return [placed(lines, lineOffset, locationOf(error), `GLSL syntax: ${syntaxMessage(error)}`)];
  }
  const foreign = stage.stage === "vertex" ? [] : foreignVaryings(program, stage.varyings);
  const problems = [...foreign, ...undeclaredNames(program)]
    .map(({ at, message }) => placed(lines, lineOffset, at, message));
  return problems.length > 0 ? problems : { program, text };
}

/**
 * Varyings other than ISF's own and those the preset's vertex shader sets (`vertexVaryings`,
 * undefined without one): ISF files declare them for the vertex shader (`.vs`) beside them,
 * and one no vertex shader sets would never be set (and the program would not link).
 */
function foreignVaryings(
  program: GlslProgram,
  vertexVaryings: ReadonlySet<string> | undefined,
): Array<{ at: At | null; message: string }> {
  return topLevelVaryings(program, "in").flatMap(({ name, at }) => {
    if (name === "isf_FragNormCoord" || vertexVaryings?.has(name)) return [];
    const message = vertexVaryings
      ? `'${name}' : a varying the vertex shader (vertexCode) does not set: declare and set it there, or compute it in main() from isf_FragNormCoord`
      : `'${name}' : a varying set by the shader's own vertex shader (.vs), which this preset has not: give it as vertexCode (preset.import takes the .vs beside the .fs), or compute it in main() from isf_FragNormCoord`;
    return [{ at, message }];
  });
}

/**
 * The varyings declared at the top of `program`: `varying`, or ES 3.00's `in` (a fragment's
 * inputs) or `out` (a vertex shader's outputs), as `direction` says.
 */
function topLevelVaryings(
  program: GlslProgram,
  direction: "in" | "out",
): Array<{ name: string; at: At | null }> {
  return program.program.flatMap((node) => {
    const list = (node as { declaration?: DeclaratorList }).declaration;
    const qualifiers = list?.specified_type?.qualifiers ?? [];
    if (!qualifiers.some((q) => q.token === "varying" || q.token === direction)) return [];
    return (list?.declarations ?? []).map(({ identifier }) => ({
      name: identifier.identifier,
      at: startOf(identifier),
    }));
  });
}

/** The parts of a declaration statement's AST that `topLevelVaryings` reads. */
interface DeclaratorList {
  specified_type?: { qualifiers?: Array<{ token?: string }> };
  declarations?: Array<{ identifier: { identifier: string } }>;
}

/** Names used and declared nowhere: variables, and functions neither declared nor built in. */
function undeclaredNames(
  program: GlslProgram,
): Array<{ at: At | null; message: string }> {
  const found: Array<{ at: At | null; message: string }> = [];
  for (const scope of program.scopes) {
    for (const [name, entry] of Object.entries(scope.bindings)) {
      if (entry.declaration || name.startsWith("gl_")) continue;
      found.push({
        at: startOf(entry.references[0]),
        message: `'${name}' : undeclared identifier`,
      });
    }
    for (const [name, overloads] of Object.entries(scope.functions)) {
      const all = Object.values(overloads);
      const isDeclared = all.some((o) =>
        o.declaration || o.references.some((r) => r.type !== "function_call")
      );
      if (isDeclared || ES_FUNCTIONS.has(name) || name.endsWith("EXT")) continue;
      found.push({
        at: startOf(all[0]?.references[0]),
        message: `'${name}' : no matching function (it is neither declared nor built in)`,
      });
    }
  }
  return found.sort((a, b) => (a.at?.line ?? 0) - (b.at?.line ?? 0));
}

/** Each line not in a directive nor begun inside a block comment, with its number first. */
function markLines(source: string): string {
  let isInComment = false;
  let isContinued = false;
  return source.split("\n").map((line, i) => {
    const isDirective = isContinued || line.trimStart().startsWith("#");
    const marked = isInComment || isDirective ? line : `/*@${i + 1}*/${line}`;
    isContinued = isDirective && line.trimEnd().endsWith("\\");
    isInComment = endsInComment(line, isInComment);
    return marked;
  }).join("\n");
}

/** Whether a block comment is open at the end of `line`. */
function endsInComment(line: string, isInComment: boolean): boolean {
  let open = isInComment;
  for (let i = 0; i < line.length; i++) {
    if (open && line.startsWith("*/", i)) {
      open = false;
      i++;
    } else if (!open && line.startsWith("//", i)) return false;
    else if (!open && line.startsWith("/*", i)) {
      open = true;
      i++;
    }
  }
  return open;
}

/**
 * A problem at `at` in `lines` (of marked text), at the user's line: the mark
 * of that line, or of the nearest marked line above it plus the lines between.
 */
function placed(lines: string[], lineOffset: number, at: At | null, message: string): IsfProblem {
  const index = Math.min(Math.max((at?.line ?? 1) - 1, 0), lines.length - 1);
  let line = 0;
  let column = at?.column ?? 1;
  for (let i = index; i >= 0; i--) {
    const mark = /^\/\*@(\d+)\*\//.exec(lines[i] ?? "");
    if (!mark) continue;
    line = Number(mark[1]) + (index - i);
    if (i === index) column = Math.max(1, column - mark[0].length);
    break;
  }
  const userLine = line - lineOffset;
  if (userLine < 1) {
    return { line: 1, column: 1, message: `in the declarations of the inputs: ${message}` };
  }
  return { line: userLine, column, message };
}

/** The line and column of `offset` in `text`. */
function offsetAt(text: string, offset: number): At {
  const before = text.slice(0, offset);
  return { line: before.split("\n").length, column: offset - before.lastIndexOf("\n") };
}

/**
 * A check cut by a bound of its work, or by a parser that ran out of stack
 * (or string length) on code nested or expanded beyond it: the nesting bound
 * keeps such code out before it gets there.
 */
function cut(error: WorkBoundReached | RangeError): IsfProblem {
  if (error instanceof WorkBoundReached) return boundProblem(error);
  const why = error.message.charAt(0).toLowerCase() + error.message.slice(1);
  return {
    line: 1,
    column: 1,
    message: `GLSL syntax: the code nests too deeply to be checked (${why})`,
  };
}

function startOf(node: unknown): At | null {
  const start = (node as { location?: { start?: At } } | undefined)?.location?.start;
  return start ? { line: start.line, column: start.column } : null;
}

function locationOf(error: unknown): At | null {
  return startOf(error);
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split("\n")[0]!.replace(/^Error: /, "");
}

/**
 * Where a `;` is missing, as TypeScript reports it: when the parser expected one at the first
 * token of a line, the end of the code before it (comments and blanks skipped), on its line;
 * null when the parser expected no `;` or the code before is on the same line.
 */
function missingSemicolon(text: string, error: unknown): At | null {
  const { expected, location } = error as {
    expected?: Array<{ type?: string; text?: string }>;
    location?: { start?: { offset?: number; line?: number } };
  };
  const offset = location?.start?.offset;
  if (offset === undefined || !expected?.some((e) => e.type === "literal" && e.text === ";")) {
    return null;
  }
  let before = text.slice(0, offset);
  for (let last = ""; last !== before;) {
    last = before;
    before = before.trimEnd();
    if (before.endsWith("*/")) before = before.slice(0, before.lastIndexOf("/*"));
    const lineStart = before.lastIndexOf("\n") + 1;
    const comment = before.indexOf("//", lineStart);
    if (comment >= 0) before = before.slice(0, comment);
  }
  const end = offsetAt(text, before.length);
  return end.line < (location?.start?.line ?? 0) ? end : null;
}

/** Peggy's "Expected ... but x found." in sentence case, without the ASCII art. */
function syntaxMessage(error: unknown): string {
  const line = firstLine(error).replace(/\.$/, "");
  return line.charAt(0).toLowerCase() + line.slice(1);
}

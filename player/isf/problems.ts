/**
 * A problem in a preset's ISF code, named by its line and column in the code
 * as the user wrote it (1-based), as preset validation reports it.
 * @module
 */

/** One problem of ISF code. */
export interface IsfProblem {
  /** 1-based line in the user's code. */
  readonly line: number;
  /** 1-based column in that line. */
  readonly column: number;
  /** What is wrong, sentence case, no final period. */
  readonly message: string;
  /** Set when the problem is in the preset's vertex shader (`vertexCode`), not its `code`. */
  readonly field?: "vertexCode";
}

/** A problem at `offset` of `code`. */
export function problemAt(code: string, offset: number, message: string): IsfProblem {
  const before = code.slice(0, Math.max(0, offset));
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return { line, column, message };
}

/** `problem` as one line: `line 3, column 7: message`. */
export function describeProblem(problem: IsfProblem): string {
  return `line ${problem.line}, column ${problem.column}: ${problem.message}`;
}

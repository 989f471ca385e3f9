/**
 * The bounds of an ISF check, in work, never in time: a shader gets the same
 * verdict on a quiet machine and on a busy one. Each bound is declared here
 * once (docs/presets.md, "Bounds", gives the figures); `WorkBudget` counts the
 * work of one check against them and cuts it with `WorkBoundReached`, which
 * `boundProblem` turns into a refusal that names the bound and what to change.
 * @module
 */
import type { IsfProblem } from "./problems.ts";

/** The work one check may do. */
export interface IsfCheckBounds {
  /** Characters of the code as written (header and comments count). */
  readonly codeCharacters: number;
  /** `#define` directives in the code. */
  readonly macros: number;
  /** Uses of a macro's body as the preprocessor expands macros. */
  readonly macroExpansions: number;
  /** Characters the uses of macro bodies produce, summed over every expansion. */
  readonly expandedCharacters: number;
  /** Tokens (words, numbers and symbols) of the code with its macros expanded. */
  readonly tokens: number;
  /** Brackets `(`, `[` and `{` open at once. */
  readonly nesting: number;
  /** Steps of the GLSL parser: about two a node of the syntax tree it builds. */
  readonly parseSteps: number;
}

/**
 * The bounds of every check. Of the 321 shaders of ISF-Files (github.com/Vidvox/ISF-Files),
 * the largest is 23 713 characters; the most work is 3 372 tokens and 14 967 parse steps
 * (Broken LCD), a nesting of 8, and 8 macros expanded 29 times into 1 748 characters
 * (Median): each bound is several times that. The parser nests about 20 calls a bracket and
 * runs out of stack between 800 and 1 500 brackets: `nesting` keeps far below.
 */
export const ISF_CHECK_BOUNDS: IsfCheckBounds = {
  codeCharacters: 65_536,
  macros: 64,
  macroExpansions: 4_096,
  expandedCharacters: 262_144,
  tokens: 20_000,
  nesting: 128,
  parseSteps: 60_000,
};

/**
 * The longest size expression of a pass (`PASSES`' `WIDTH`, `HEIGHT`), in
 * characters: ISF-Files' longest is 36. Each node of its tree takes at least
 * one character, so this also bounds its nodes and the steps of checking and
 * evaluating it (one a node).
 */
export const MAX_EXPRESSION_LENGTH = 256;

/**
 * The heap one check may take, MB: its process (`check_stdio.ts`) looks at its heap's growth
 * since a collection at the check's start with each progress report and ends itself past
 * this, a refusal that says the code is too large to check; V8's own limit, at twice this,
 * ends it where the look cannot (`check_child.ts`).
 * Of ISF-Files the most a check's heap reached at a look is 91 MB (MultiFrame 3x3; the
 * checker's modules take 12 MB), measured with a collection before each shader.
 */
export const ISF_CHECK_HEAP_MB = 256;

/**
 * The iterations one invocation of a preset's shader (one pixel of one pass) may run, all
 * its loops together: the check caps every loop with it (`loop_cap.ts`). Past it, each loop
 * stops at its next iteration and the pixel is what the shader drew so far. Of the 321
 * ISF-Files shaders the most a pixel loops is 512 (Auto Colors Histogram; 360 for a loop
 * bounded by an input at its MAX; `tools/isf_loop_census.ts`): this is eight times that.
 */
export const LOOP_CAP = 4096;

/**
 * The edits' ISF checks that may wait for a place (ISF_CHECKS_AT_ONCE run at once,
 * `check_memo.ts`): one more is refused at once, retryable (`IsfChecksBusy`), so a flood of
 * `preset.validate` cannot pile up requests and their code without bound. At about 1 s a
 * check on a busy machine (docs/presets.md, "Bounds"), two at once, the last of 32 waits
 * some 16 s. Each waiting check holds its code and its vertex shader, each at most
 * `codeCharacters` (longer is refused before it waits, `codeLengthRefusal`): 128 KiB each as
 * UTF-16, so the 32 hold at most 8 MiB.
 */
export const ISF_CHECKS_WAITING = 32;

/** What is said of each bound when a check reaches it: what it is, and what to change. */
const WHAT: Record<keyof IsfCheckBounds, (bound: number) => string> = {
  codeCharacters: (b) => `the code is over ${b} characters: make it shorter`,
  macros: (b) => `the code defines over ${b} macros (#define): define fewer`,
  macroExpansions: (b) =>
    `its macros expand over ${b} times (a macro that expands without bound?): use functions rather than macros`,
  expandedCharacters: (b) =>
    `its macros expand to over ${b} characters (a macro that expands without bound?): use functions rather than macros`,
  tokens: (b) => `with its macros expanded, the code has over ${b} tokens: make it shorter`,
  nesting: (b) => `brackets nest over ${b} deep: nest less`,
  parseSteps: (b) => `parsing the code takes over ${b} steps: make it shorter`,
};

/** A check cut by one of its bounds (deterministic: the same code always reaches it). */
export class WorkBoundReached extends Error {
  /** Which bound. */
  readonly bound: keyof IsfCheckBounds;
  /** Where in the text being checked it was reached, when known (0-based offset). */
  readonly offset: number | null;

  /** The error for `bound` of `value`, reached at `offset`. */
  constructor(bound: keyof IsfCheckBounds, value: number, offset: number | null = null) {
    super(`the check stopped at its bound: ${WHAT[bound](value)}`);
    this.name = "WorkBoundReached";
    this.bound = bound;
    this.offset = offset;
  }
}

/** `error` as a problem at line 1 (where the bound is of the whole code). */
export function boundProblem(error: WorkBoundReached): IsfProblem {
  return { line: 1, column: 1, message: error.message };
}

/** How much work passes between two progress reports. */
const PROGRESS_EVERY = 1024;

/**
 * The work of one check, counted against its bounds; every PROGRESS_EVERY
 * units of any kind, `onProgress` hears the total (the worker's liveness).
 * @example
 * ```ts
 * const budget = new WorkBudget(ISF_CHECK_BOUNDS);
 * budget.spend("tokens"); // throws WorkBoundReached past the bound
 * ```
 */
export class WorkBudget {
  readonly #bounds: IsfCheckBounds;
  readonly #spent = new Map<keyof IsfCheckBounds, number>();
  readonly #onProgress: ((work: number) => void) | undefined;
  #total = 0;
  #reported = 0;

  /** A budget of `bounds` (ISF_CHECK_BOUNDS where not given). */
  constructor(bounds: Partial<IsfCheckBounds> = {}, onProgress?: (work: number) => void) {
    this.#bounds = { ...ISF_CHECK_BOUNDS, ...bounds };
    this.#onProgress = onProgress;
  }

  /** The bounds counted against. */
  get bounds(): IsfCheckBounds {
    return this.#bounds;
  }

  /** The work done so far, of every kind. */
  get total(): number {
    return this.#total;
  }

  /**
   * Counts `amount` of `bound`'s work (at `offset` of the text, when known).
   * @throws {WorkBoundReached} past the bound
   */
  spend(bound: keyof IsfCheckBounds, amount = 1, offset: number | null = null): void {
    const spent = (this.#spent.get(bound) ?? 0) + amount;
    this.#spent.set(bound, spent);
    if (spent > this.#bounds[bound]) throw new WorkBoundReached(bound, this.#bounds[bound], offset);
    this.#total += amount;
    if (this.#total - this.#reported >= PROGRESS_EVERY) {
      this.#reported = this.#total;
      this.#onProgress?.(this.#total);
    }
  }

  /**
   * Checks a size that is measured, not summed (the code's length, a nesting).
   * @throws {WorkBoundReached} when `value` is over `bound`'s
   */
  within(bound: keyof IsfCheckBounds, value: number, offset: number | null = null): void {
    if (value > this.#bounds[bound]) throw new WorkBoundReached(bound, this.#bounds[bound], offset);
  }
}

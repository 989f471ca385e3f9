/**
 * `parseIsf` off the player's thread, so a live show's clock never waits on
 * a check, and out of the player's process, in a checker process kept between
 * checks (`checker_pool.ts`) and ended after a check cut short, past a heap
 * ceiling, after 64 checks or when idle, so that what checks take of memory is
 * returned (`check_child.ts`). A check is bounded by
 * its work (`bounds.ts`) and its memory (ISF_CHECK_HEAP_MB), never by time:
 * its process is not ended for being slow. Only one that reports no progress
 * at all (a fault of the checker, not of the code) is given up on, and that
 * is not a verdict: `IsfCheckStalled`, which the edit answers as retryable.
 * Code the check takes is then compiled by glslang (`glsl_types.ts`) in the
 * player's long-lived compiler process (`glsl_compiler.ts`): what GL would
 * refuse (types, overloads) is refused at its line, with or without an output.
 * @module
 */
import { type Clock, MonotonicClock } from "../clock.ts";
import { ISF_CHECK_HEAP_MB, type IsfCheckBounds } from "./bounds.ts";
import { checkerCommand } from "./check_child.ts";
import {
  type CheckerAnswered,
  type CheckerLease,
  type CheckerPool,
  ISF_CHECKERS,
} from "./checker_pool.ts";
import { codeLengthRefusal, type IsfKind, type IsfResult } from "./parse.ts";
import type { IsfProblem } from "./problems.ts";
import { ProgressWatch } from "../../lib/progress_watch.ts";
import { GLSL_COMPILER, type GlslCompiler } from "./glsl_compiler.ts";
import { glslangSource, type GlslStage, typeProblems } from "./glsl_types.ts";

/**
 * How often a check's watch looks for progress, ms; a check that reported
 * none over two looks in a row (30 to 60 s of no work at all) is given up
 * on. A check reports every 1024 units of work: about 0.2 s apart at a
 * load average of 30 (docs/presets.md, "Bounds"); starting its process and
 * loading the check takes about 0.9 s at a load average of 13, seconds more
 * on a busier machine.
 */
export const ISF_CHECK_STALL_MS = 30_000;

/**
 * A check that gave no verdict: its process made no progress, or ended without answering
 * for another cause than its memory. Not a verdict on the code: send it again.
 */
export class IsfCheckStalled extends Error {
  /** Stable: `CHECK_STALLED` (`CHECKS_BUSY` for `IsfChecksBusy`). */
  readonly code: "CHECK_STALLED" | "CHECKS_BUSY" = "CHECK_STALLED";

  /** The error for a check silent over two looks `periodMs` apart, or lost for `why`. */
  constructor(periodMs: number, why = `its check made no progress for ${periodMs / 1000} s`) {
    super(
      `The code could not be checked: ${why} (a fault of the checker, not a verdict on the code): send it again`,
    );
    this.name = "IsfCheckStalled";
  }
}

/**
 * A check refused before it ran: ISF_CHECKS_WAITING checks already wait for a place. Not a
 * verdict on the code, answered as its parent is (retryable): send it again.
 */
export class IsfChecksBusy extends IsfCheckStalled {
  /** Stable: `CHECKS_BUSY`. */
  override readonly code = "CHECKS_BUSY";

  /** The error for a check refused with `waiting` checks already waiting. */
  constructor(waiting: number) {
    super(0);
    this.message =
      `The code could not be checked now: ${waiting} checks already wait their turn (ISF_CHECKS_WAITING), not a verdict on the code: send it again`;
    this.name = "IsfChecksBusy";
  }
}

/** How a check apart runs. */
export interface IsfApartOptions {
  /** The clock of the progress watch (the player's monotonic clock by default). */
  readonly clock?: Clock;
  /** Bounds in place of ISF_CHECK_BOUNDS' (a test's tiny budget). */
  readonly bounds?: Partial<IsfCheckBounds>;
  /** The watch's period, ms (ISF_CHECK_STALL_MS). */
  readonly stallMs?: number;
  /** The heap's ceiling, MB, in place of ISF_CHECK_HEAP_MB (a test's tiny one). */
  readonly heapMb?: number;
  /** The checker's command line (`checkerCommand()`; a test's stand-in). */
  readonly command?: readonly string[];
  /** Hears each progress report of the check (its work so far). */
  readonly onProgress?: (work: number) => void;
  /** The preset's own vertex shader (`.vs`), checked with the code. */
  readonly vertexCode?: string;
  /** The checker processes (ISF_CHECKERS; a test's own). */
  readonly pool?: CheckerPool;
  /** The compiler of code the check took (GLSL_COMPILER); null: none (a stand-in checker's). */
  readonly compiler?: GlslCompiler | null;
}

/** The refusal of code whose check passed its memory ceiling: the same at any load. */
export function tooLargeProblem(): IsfProblem {
  return {
    line: 1,
    column: 1,
    message:
      `the code is too large to check: its check needs over ${ISF_CHECK_HEAP_MB} MB of memory: make it shorter or simpler`,
  };
}

/**
 * `parseIsf(code, kind)` in a checker process (`check_child.ts`), one the pool kept from an
 * earlier check or a new one (`checker_pool.ts`; code over `codeCharacters` is refused before
 * one is taken, as the check would); a check that passes its memory ceiling is one problem
 * (`tooLargeProblem`). A kept process that ended before it heard the check is not the
 * check's fault: the check is sent again, once, to a new process.
 * @throws {IsfCheckStalled} when the process reported no progress over two looks of its
 *   watch, ended without an answer for another cause than its memory, or answered a
 *   message of no kind the checker writes
 */
export async function parseIsfApart(
  code: string,
  kind: IsfKind,
  options: IsfApartOptions = {},
): Promise<IsfResult> {
  // Refused here, as the check would: no process is taken for code too long to check.
  const tooLong = codeLengthRefusal(code, options.bounds, options.vertexCode);
  if (tooLong) return tooLong;
  const stallMs = options.stallMs ?? ISF_CHECK_STALL_MS;
  const pool = options.pool ?? ISF_CHECKERS;
  const command = options.command ?? checkerCommand();
  const request = {
    code,
    kind,
    vertexCode: options.vertexCode,
    bounds: options.bounds ?? {},
    heapMb: options.heapMb,
  };
  const run = { pool, command, request, options, stallMs };
  let result: IsfResult;
  try {
    result = await checkIn(pool.take(command), run);
  } catch (error) {
    if (!(error instanceof Unheard)) throw error;
    result = await checkIn(pool.take(command, { isFresh: true }), run);
  }
  const compiler = options.compiler === undefined ? GLSL_COMPILER : options.compiler;
  const source = { code, vertexCode: options.vertexCode };
  return compiler ? await withTypes(result, source, compiler, stallMs) : result;
}

/** One check's request, and where and how it runs. */
interface CheckRun {
  readonly pool: CheckerPool;
  readonly command: readonly string[];
  readonly request: object;
  readonly options: IsfApartOptions;
  readonly stallMs: number;
}

/** A kept process that ended before it said a word of the check: not the check's fault. */
class Unheard extends Error {}

/**
 * The check of `request` in `lease`'s process, given back to its pool once it answered.
 * @throws {IsfCheckStalled} as `parseIsfApart`; {Unheard} for a kept process that ended unheard
 */
async function checkIn({ process, isWarm }: CheckerLease, run: CheckRun): Promise<IsfResult> {
  const { request, options, stallMs } = run;
  const answer = Promise.withResolvers<{ result: IsfResult } & CheckerAnswered>();
  const tooLarge = {
    result: { ok: false, problems: [tooLargeProblem()] } as IsfResult,
    heapMb: 0,
    retire: true,
  };
  let isHeard = false;
  const watch = new ProgressWatch(
    options.clock ?? new MonotonicClock(),
    stallMs,
    () => answer.reject(new IsfCheckStalled(stallMs)),
  );
  void process.send(request, (message) => {
    isHeard = true;
    watch.progress();
    if ("result" in message) {
      const { result, heapMb, retire } = message;
      return answer.resolve({ result: result as IsfResult, heapMb, retire: retire === true });
    }
    if ("progress" in message) return options.onProgress?.(message.progress);
    if ("overCeiling" in message && message.overCeiling === true) return answer.resolve(tooLarge);
    // Not a message of the protocol: the checker's fault, no verdict.
    const said = JSON.stringify(message).slice(0, 80);
    answer.reject(new IsfCheckStalled(stallMs, `its check answered what no check says (${said})`));
  });
  void process.ended.then(({ isOutOfMemory, stderr }) => {
    if (isOutOfMemory) return answer.resolve(tooLarge);
    if (isWarm && !isHeard) return answer.reject(new Unheard());
    const why = stderr.trim().split("\n").at(-1) || "no reason given";
    answer.reject(new IsfCheckStalled(stallMs, `its check ended without an answer (${why})`));
  });
  try {
    const { result, ...answered } = await answer.promise;
    run.pool.give(run.command, process, answered);
    if (process.isEnded) await process.ended;
    return result;
  } catch (error) {
    process.end();
    await process.ended;
    throw error;
  } finally {
    watch.stop();
  }
}

/**
 * `result` refused at the lines glslang names when it refuses the sources the output compiles
 * (ES 1.00 code's lifted ES 3.00 form, which the output falls back to): the preset's own
 * vertex shader first, at the `.vs`'s lines (its problems name `vertexCode`), then the fragment.
 * @throws {IsfCheckStalled} when the compiler gave no answer
 */
async function withTypes(
  result: IsfResult,
  { code, vertexCode }: { code: string; vertexCode: string | undefined },
  compiler: GlslCompiler,
  stallMs: number,
): Promise<IsfResult> {
  if (!result.ok) return result;
  const { lifted, fragment, lineOffset, vertex, vertexLineOffset } = result.program;
  const compile = async (source: string, stage: GlslStage) => {
    try {
      return (await compiler.compile(glslangSource(source, lifted !== null), stage)).log;
    } catch (error) {
      const why = `its compile ended without an answer (${(error as Error)?.message ?? error})`;
      throw new IsfCheckStalled(stallMs, why);
    }
  };
  if (vertexCode !== undefined && vertexLineOffset !== undefined) {
    const own = lifted ? lifted.vertex : vertex;
    // The lifted source ends with the same lines of the user's code as the ES 1.00 one.
    const offset = vertexLineOffset + lineCount(own) - lineCount(vertex);
    const problems = typeProblems(await compile(own, "vertex"), vertexCode, offset)
      .map((p) => ({ ...p, field: "vertexCode" as const }));
    if (problems.length > 0) return { ok: false, problems };
  }
  const compiled = lifted ?? { fragment, lineOffset };
  const problems = typeProblems(
    await compile(compiled.fragment, "fragment"),
    code,
    compiled.lineOffset,
  );
  return problems.length > 0 ? { ok: false, problems } : result;
}

const lineCount = (text: string) => text.split("\n").length;

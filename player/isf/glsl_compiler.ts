/**
 * The player's GLSL compiler (glslang, `glsl_types.ts`) in one long-lived process of its own:
 * the checker's program (`cueport isf-check`, `check_child.ts`) sent `{compile}` requests, one at
 * a time. glslang's first compile in a process builds its tables of built-ins (about 0.7 s on a
 * quiet machine, 1.3 s at a load of 6), then a shader takes 1 to 8 ms: a process a check (as the
 * parse has, `apart.ts`) would pay that start 321 times for the ISF collection, so this one is
 * kept, started at the first compile. Its verdict cannot depend on what it compiled before:
 * glslang frees each compile's memory, the process is replaced once its memory passes
 * GLSL_COMPILER_RSS_MB (between compiles), and a compile it did not answer (it ended, or made no
 * progress over two looks of ISF_CHECK_STALL_MS) is tried once more in a fresh process; a fresh
 * process that fails too gives no verdict (`IsfCheckStalled`, retryable). The process is unref'd
 * (it keeps no player alive) and ends when the player's end closes its stdin.
 * @module
 */
import { MONOTONIC_TIMER_CLOCK, ProgressWatch, type TimerClock } from "../../lib/progress_watch.ts";
import { checkerCommand, ISF_CHECK_LINE_BYTES, spawnChecker } from "./check_child.ts";
import { LineReader } from "../../protocol/transport.ts";
import type { GlslStage } from "./glsl_types.ts";

/** The compiler process is replaced, between compiles, once its resident memory passes this. */
export const GLSL_COMPILER_RSS_MB = 384;

/** What a compile answers: glslang's log (empty: it compiled). */
export interface GlslCompiled {
  readonly log: string;
}

/** One compiler process: requests in order, each answered by one line. */
class CompilerProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #waiting: Array<PromiseWithResolvers<{ log: string; rssMb: number }>> = [];
  /** Whether it ended or is ending (it takes no more requests). */
  isEnded = false;
  /** Its resident memory at its last answer, MB. */
  rssMb = 0;

  constructor(command: readonly string[]) {
    ({ child: this.#child, writer: this.#writer } = spawnChecker(command, "null"));
    this.#child.unref();
    // Its stdout ended, or said what no compiler says: it is done either way.
    void this.#read().catch(() => {}).finally(() => this.end());
  }

  /** glslang's log of `source` (of `stage`); rejects when the process ends first. */
  compile(source: string, stage: GlslStage): Promise<{ log: string; rssMb: number }> {
    const answer = Promise.withResolvers<{ log: string; rssMb: number }>();
    if (this.isEnded) answer.reject(new Error("the compiler ended"));
    else {
      this.#waiting.push(answer);
      const line = JSON.stringify({ compile: source, stage }) + "\n";
      this.#writer.write(new TextEncoder().encode(line)).catch(() => this.end());
    }
    return answer.promise;
  }

  /** Ends the process: its pending compiles are rejected. */
  end(): void {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already ended.
    }
    this.#fail();
  }

  #fail(): void {
    this.isEnded = true;
    for (const answer of this.#waiting.splice(0)) answer.reject(new Error("the compiler ended"));
  }

  /** Its answers, a line each, by the one line reader: a line too long ends it. */
  async #read(): Promise<void> {
    const reader = new LineReader(
      (line) => {
        const answer = JSON.parse(line) as { compiled?: string; rssMb?: number };
        this.rssMb = answer.rssMb ?? 0;
        this.#waiting.shift()?.resolve({ log: answer.compiled ?? "", rssMb: this.rssMb });
      },
      () => this.end(),
      { maxLineBytes: ISF_CHECK_LINE_BYTES },
    );
    await reader.readAll(this.#child.stdout);
  }
}

/** How the compiler runs. */
export interface GlslCompilerOptions {
  /** The process's command line (`checkerCommand()`; a test's stand-in). */
  readonly command?: readonly string[];
  /** The watch's period, ms (ISF_CHECK_STALL_MS of `apart.ts` by default). */
  readonly stallMs?: number;
  /** The memory past which the process is replaced, MB (GLSL_COMPILER_RSS_MB). */
  readonly rssMb?: number;
  /** The watch's clock (the monotonic clock; a test's virtual one). */
  readonly clock?: TimerClock;
}

/** glslang in a long-lived process, started at the first compile, compiles one at a time. */
export class GlslCompiler {
  readonly #options: GlslCompilerOptions;
  #process: CompilerProcess | null = null;
  #turn: Promise<unknown> = Promise.resolve();
  /** Processes started so far (for tests and the bench). */
  started = 0;

  /** A compiler run as `options` say. */
  constructor(options: GlslCompilerOptions = {}) {
    this.#options = options;
  }

  /**
   * glslang's log of `source`, from a process that answered it, tried once more in a fresh
   * process when the first did not.
   * @throws {Error} when a fresh process did not answer either (no verdict)
   */
  compile(source: string, stage: GlslStage = "fragment"): Promise<GlslCompiled> {
    const result = this.#turn.then(() => this.#compileNow(source, stage));
    this.#turn = result.catch(() => {});
    return result;
  }

  /** Ends the process (the next compile starts another). */
  close(): void {
    this.#process?.end();
    this.#process = null;
  }

  async #compileNow(source: string, stage: GlslStage): Promise<GlslCompiled> {
    const isFresh = this.#process === null || this.#process.isEnded;
    try {
      return await this.#once(source, stage);
    } catch (error) {
      if (isFresh) throw error;
      return await this.#once(source, stage);
    }
  }

  async #once(source: string, stage: GlslStage): Promise<GlslCompiled> {
    const limit = this.#options.rssMb ?? GLSL_COMPILER_RSS_MB;
    if (this.#process && (this.#process.isEnded || this.#process.rssMb > limit)) this.close();
    if (!this.#process) {
      this.#process = new CompilerProcess(this.#options.command ?? checkerCommand());
      this.started++;
    }
    const process = this.#process;
    const stallMs = this.#options.stallMs ?? 30_000;
    // A compile reports nothing until its answer: one that hangs is given up on after two looks.
    const watch = new ProgressWatch(
      this.#options.clock ?? MONOTONIC_TIMER_CLOCK,
      stallMs,
      () => process.end(),
    );
    try {
      const { log } = await process.compile(source, stage);
      return { log };
    } catch (error) {
      if (this.#process === process) this.close();
      throw error;
    } finally {
      watch.stop();
    }
  }
}

/** The player's compiler (one process for all its checks). */
export const GLSL_COMPILER: GlslCompiler = new GlslCompiler();

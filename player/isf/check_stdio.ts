/**
 * The ISF check's own process (`cueport isf-check`, `main.ts`): `parseIsf` for
 * each request line on stdin, one at a time, in a process the player ends and
 * replaces (`checker_pool.ts`), so that whatever checks take of memory goes back
 * to the system (a worker thread's did not: docs/presets.md, "Bounds"). Requests
 * and answers are JSON lines: `{code, kind, bounds?, heapMb?}` in; `{progress: work}`
 * (every 1024 units of counted work), then `{result, heapMb, retire?}` out (`retire`:
 * the check reached a bound or failed, so its process is not given another), or
 * `{overCeiling: true}` before it ends itself when the check's heap grew past
 * `ISF_CHECK_HEAP_MB` (looked at with each progress report: at the same points of the
 * work whatever the load). Each check starts with a full garbage collection and
 * measures its heap from there, so what earlier checks left counts for none: a check
 * gets the verdict it would get in a fresh process. The same
 * program is the player's long-lived GLSL compiler (`glsl_compiler.ts`): a
 * request `{compile: source, stage?}` is answered `{compiled: log, rssMb}` by glslang
 * (`glsl_types.ts`), loaded at the first.
 * @module
 */
import v8 from "node:v8";
import vm from "node:vm";
import { ISF_CHECK_HEAP_MB, type IsfCheckBounds } from "./bounds.ts";
import { ISF_CHECK_LINE_BYTES, OVER_CEILING_CODE, TOO_LONG_CODE } from "./check_child.ts";
import { LineReader } from "../../protocol/transport.ts";
import { type IsfKind, parseIsf } from "./parse.ts";
import { type GlslStage, loadGlslang } from "./glsl_types.ts";

/** What the checker process is asked. */
export interface IsfCheckRequest {
  readonly code: string;
  readonly kind: IsfKind;
  /** The preset's own vertex shader, when it has one. */
  readonly vertexCode?: string;
  readonly bounds?: Partial<IsfCheckBounds>;
  /** The heap's ceiling, MB, in place of ISF_CHECK_HEAP_MB (a test's tiny one). */
  readonly heapMb?: number;
}

/** A problem of a check cut short: a bound of its work (`bounds.ts`), or the parser's stack. */
const CUT = /the check stopped at its bound|nests too deeply to be checked/;

const encoder = new TextEncoder();

function say(message: unknown): void {
  const bytes = encoder.encode(JSON.stringify(message) + "\n");
  for (let at = 0; at < bytes.length;) at += Deno.stdout.writeSync(bytes.subarray(at));
}

function heapMb(): number {
  return Deno.memoryUsage().heapUsed / 1024 / 1024;
}

let collector: (() => void) | null = null;

/**
 * A full garbage collection: V8's `gc`, exposed at the first call (the compiled binary
 * takes no V8 flags at its start; `node:v8` sets the flag, a new context then has `gc`).
 */
function collectGarbage(): void {
  if (!collector) {
    v8.setFlagsFromString("--expose-gc");
    collector = vm.runInNewContext("gc") as () => void;
  }
  collector();
}

/** A request of the checker process: a check, or a compile. */
type Request = IsfCheckRequest | { compile: string; stage?: GlslStage };

/** Where the checker process reads, and what it does with a line too long. */
export interface CheckStdioOptions {
  /** Its requests (stdin). */
  readonly readable?: ReadableStream<Uint8Array>;
  /** The longest request line read (ISF_CHECK_LINE_BYTES). */
  readonly maxLineBytes?: number;
  /** A longer line came (by default: say so on stderr, end with TOO_LONG_CODE). */
  readonly onTooLong?: (maxLineBytes: number) => void;
}

/** A request line too long: the process says so and ends, so the player's wait ends naming why. */
function endTooLong(maxLineBytes: number): void {
  console.error(`the check's request line is too long: over ${maxLineBytes} bytes`);
  Deno.exit(TOO_LONG_CODE);
}

/**
 * Answers checks on stdin until it closes, one request a line, in turn (lines read by the one
 * line reader, `LineReader`, of at most `maxLineBytes`: a longer one is refused, never buffered).
 */
export async function runIsfCheckStdio(options: CheckStdioOptions = {}): Promise<void> {
  const maxLineBytes = options.maxLineBytes ?? ISF_CHECK_LINE_BYTES;
  const onTooLong = options.onTooLong ?? endTooLong;
  // Each request waits for the one before (a compile loads glslang).
  let turn = Promise.resolve();
  const reader = new LineReader(
    (line) => {
      if (line.trim() === "") return;
      const request = JSON.parse(line) as Request;
      turn = turn.then(() => answer(request));
    },
    () => onTooLong(maxLineBytes),
    { maxLineBytes },
  );
  await reader.readAll(options.readable ?? Deno.stdin.readable);
  await turn;
}

/** Answers one request. */
async function answer(request: Request): Promise<void> {
  if ("compile" in request) await compile(request.compile, request.stage);
  else check(request);
}

/** glslang's log of `source` (empty: it compiled), and this process's resident memory. */
async function compile(source: string, stage?: GlslStage): Promise<void> {
  const compiled = (await loadGlslang())(source, stage);
  say({ compiled, rssMb: Math.round(Deno.memoryUsage().rss / 1024 / 1024) });
}

function check({ code, kind, vertexCode, bounds, heapMb: ceiling }: IsfCheckRequest): void {
  // What earlier checks left is collected, and the heap measured from here: the check's own.
  collectGarbage();
  const baseline = heapMb();
  const onProgress = (work: number) => {
    if (heapMb() - baseline > (ceiling ?? ISF_CHECK_HEAP_MB)) {
      say({ overCeiling: true });
      Deno.exit(OVER_CEILING_CODE);
    }
    say({ progress: work });
  };
  try {
    const result = parseIsf(code, kind, {
      onProgress,
      bounds: bounds ?? {},
      ...(vertexCode === undefined ? {} : { vertexCode }),
    });
    const retire = !result.ok && result.problems.some((p) => CUT.test(p.message));
    say({ result, heapMb: Math.round(heapMb()), ...(retire ? { retire } : {}) });
  } catch (error) {
    // A check that throws refuses the code (a 422, never a 500), saying why.
    const message = `the code could not be checked: ${(error as Error)?.message ?? error}`;
    const result = { ok: false, problems: [{ line: 1, column: 1, message }] };
    say({ result, heapMb: Math.round(heapMb()), retire: true });
  }
}

/**
 * The ISF check's own process (`cueport isf-check`, `main.ts`): `parseIsf` for
 * each request line on stdin, one at a time, so that whatever a check takes of
 * memory goes back to the system when the process ends (a worker thread's did
 * not: `check_process.ts` says why). Requests and answers are JSON lines:
 * `{code, kind, bounds?, heapMb?}` in; `{progress: work}` (every 1024 units of counted
 * work), then `{result, heapMb}` out, or `{overCeiling: true}` before it ends
 * itself when the check's heap passed `ISF_CHECK_HEAP_MB` (looked at with each
 * progress report: at the same points of the work whatever the load). The same
 * program is the player's long-lived GLSL compiler (`glsl_compiler.ts`): a
 * request `{compile: source, stage?}` is answered `{compiled: log, rssMb}` by glslang
 * (`glsl_types.ts`), loaded at the first.
 * @module
 */
import { ISF_CHECK_HEAP_MB, type IsfCheckBounds } from "./bounds.ts";
import { OVER_CEILING_CODE } from "./check_child.ts";
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

const encoder = new TextEncoder();

function say(message: unknown): void {
  const bytes = encoder.encode(JSON.stringify(message) + "\n");
  for (let at = 0; at < bytes.length;) at += Deno.stdout.writeSync(bytes.subarray(at));
}

function heapMb(): number {
  return Deno.memoryUsage().heapUsed / 1024 / 1024;
}

/** Answers checks on stdin until it closes. */
export async function runIsfCheckStdio(): Promise<void> {
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
  let buffered = "";
  for await (const chunk of lines) {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf("\n")) >= 0) {
      const request = JSON.parse(buffered.slice(0, end)) as
        | IsfCheckRequest
        | { compile: string; stage?: GlslStage };
      buffered = buffered.slice(end + 1);
      if ("compile" in request) await compile(request.compile, request.stage);
      else check(request);
    }
  }
}

/** glslang's log of `source` (empty: it compiled), and this process's resident memory. */
async function compile(source: string, stage?: GlslStage): Promise<void> {
  const compiled = (await loadGlslang())(source, stage);
  say({ compiled, rssMb: Math.round(Deno.memoryUsage().rss / 1024 / 1024) });
}

function check({ code, kind, vertexCode, bounds, heapMb: ceiling }: IsfCheckRequest): void {
  const onProgress = (work: number) => {
    if (heapMb() > (ceiling ?? ISF_CHECK_HEAP_MB)) {
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
    say({ result, heapMb: Math.round(heapMb()) });
  } catch (error) {
    // A check that throws refuses the code (a 422, never a 500), saying why.
    const message = `the code could not be checked: ${(error as Error)?.message ?? error}`;
    say({ result: { ok: false, problems: [{ line: 1, column: 1, message }] }, heapMb: 0 });
  }
}

/**
 * The render worker: a Deno Worker module that renders one job at a time off
 * the service's event loop. It answers `{id, job}` with `{id, ok: true,
 * rendered}` (the bytes' buffer transferred) or `{id, ok: false, error}`.
 * @example
 * ```ts
 * const worker = new Worker(new URL("./worker.ts", import.meta.url).href, { type: "module" });
 * worker.postMessage({ id: 1, job });
 * worker.onmessage = (e) => console.log(e.data); // { id: 1, ok: true, rendered }
 * ```
 * @module
 */
import { warmUpCodecs } from "./codecs.ts";
import { takeDecodedPixels } from "./image.ts";
import { ownMemoryBytes } from "./raster.ts";
import { render, type Rendered, RenderError, type RenderJob } from "./mod.ts";

/** A request to the worker. */
export interface WorkerRequest {
  id: number;
  job: RenderJob;
}

/**
 * What a job left behind, for the pool's recycling: the most pixels a decode
 * held (WASM memories grow to fit them and never shrink) and this worker's
 * JavaScript heap and buffers, with every picture's own memory made since it
 * started (`pixelBuffer`), bytes.
 */
export interface WorkerUsage {
  pixels: number;
  heapBytes: number;
}

/** The worker's answer to one request. */
export type WorkerResponse =
  & ({ id: number; ok: true; rendered: Rendered } | {
    id: number;
    ok: false;
    error: { code: string; message: string };
  })
  & { usage: WorkerUsage };

/**
 * The pool's first message to a worker, before any job: whether it lowers its thread's
 * priority (the pool's workers for every job do, its local lane does not). A worker sent a job
 * first keeps the service's priority.
 */
export interface WorkerSetup {
  lowersPriority: boolean;
}

/**
 * Sent once the codecs are compiled: only then may the worker be terminated safely. `nice`: the
 * niceness its thread runs at (Linux), or null where unknown.
 */
export interface WorkerReady {
  ready: true;
  nice: number | null;
}

/**
 * Sent each PROGRESS_MS while a job runs (its event loop turns: the job is
 * not stuck), so the pool tells a slow worker from one that makes no progress.
 */
export interface WorkerProgress {
  progress: number;
}

/** How often a job's progress is reported, ms. */
const PROGRESS_MS = 1000;

interface WorkerScope {
  onmessage: ((event: MessageEvent<WorkerRequest | WorkerSetup>) => void) | null;
  postMessage(
    message: WorkerResponse | WorkerReady | WorkerProgress,
    transfer?: Transferable[],
  ): void;
}

/** Renders a request into its response; never throws. */
export async function answer(request: WorkerRequest): Promise<WorkerResponse> {
  const outcome = await outcomeOf(request);
  const memory = Deno.memoryUsage(); // this worker's isolate: its heap and buffers
  // Pictures' own memories (`pixelBuffer`) count until the worker ends: they are not in the
  // figures above, and go back only when collected.
  const heapBytes = memory.heapTotal + memory.external + ownMemoryBytes();
  const usage = { pixels: takeDecodedPixels(), heapBytes };
  return { ...outcome, usage } as WorkerResponse;
}

async function outcomeOf(request: WorkerRequest) {
  try {
    return { id: request.id, ok: true as const, rendered: await render(request.job) };
  } catch (error) {
    if (error instanceof RenderError) {
      return {
        id: request.id,
        ok: false as const,
        error: { code: error.code, message: error.message },
      };
    }
    // No stack and no internals: the name of what failed is enough for a log line.
    const name = error instanceof Error ? error.name : "unknown error";
    return {
      id: request.id,
      ok: false as const,
      error: { code: "SERVER_ERROR", message: `Cannot render the picture: ${name}` },
    };
  }
}

/** How much a worker that lowers its priority adds to its thread's niceness (`renice -n`). */
const LOWER_BY = 15;

/**
 * Finds the thread that started this shell (the kernel lists a thread's child processes in
 * `/proc/<pid>/task/<tid>/children`), lowers its priority by `$1` unless 0, and prints its
 * niceness (field 19 of its `stat`). A child process reads /proc freely: Deno opens
 * /proc/self and /proc/thread-self only with `--allow-all`, which the binary does not have.
 */
const OWN_THREAD_SCRIPT = `for t in /proc/$PPID/task/*; do
  grep -qw "$$" "$t/children" 2>/dev/null || continue
  [ "$1" = 0 ] || renice -n "$1" -p "\${t##*/}" >/dev/null 2>&1
  sed 's/.*) //' "$t/stat" | cut -d' ' -f17
  exit 0
done
exit 1`;

/**
 * Sets this worker's thread priority and tells it (Linux; elsewhere null: nothing changes). A
 * worker that `lowers` it (`renice` of its own thread, which an unprivileged process may do)
 * leaves the CPU to the service's event loop and the player on a 2-core show machine while it
 * makes pictures; the local lane keeps the service's priority, so the operator's thumbnail is not
 * starved by busy processes (a thread at niceness 15 gets about 1/30 of a core beside two at 0).
 * The thread is the one whose child the shell is: exact, whatever other workers start meanwhile
 * (until issue 42 it was "the newest worker thread", so the first worker and the local lane,
 * started together, both lowered the lane's). Without /proc's `children` (a kernel built without
 * CONFIG_PROC_CHILDREN), `sh`, `renice` or `sed`, the worker keeps the service's priority.
 */
async function setPriority(lowers: boolean): Promise<number | null> {
  if (Deno.build.os !== "linux") return null;
  try {
    const out = await new Deno.Command("sh", {
      args: ["-c", OWN_THREAD_SCRIPT, "sh", String(lowers ? LOWER_BY : 0)],
      stdin: "null",
      stderr: "null",
    }).output();
    const nice = Number.parseInt(new TextDecoder().decode(out.stdout), 10);
    return out.success && Number.isInteger(nice) ? nice : null;
  } catch {
    return null; // no sh: the worker runs at the service's priority
  }
}

const scope = globalThis as unknown as WorkerScope;
// Inside a worker only: `WorkerGlobalScope` exists there and not on the main thread.
const isWorker = "WorkerGlobalScope" in globalThis;
// Jobs wait for the worker's start: its priority, then its codecs, compiled at once (a failure
// shows in the first job). Terminating a worker while V8 still compiles its WASM aborts the whole
// process (Deno 2.9.6: "Check failed: (validate_functions_job_handle_) == nullptr"), so the pool
// waits for `ready`.
let started: Promise<unknown> | null = null;

/** Starts the worker once: its priority, its codecs, then `ready`. */
function start(lowersPriority: boolean): Promise<unknown> {
  return started ??= setPriority(lowersPriority).then(async (nice) => {
    await warmUpCodecs().catch(() => {});
    scope.postMessage({ ready: true, nice });
  });
}

if (isWorker) {
  let queue: Promise<unknown> = Promise.resolve();
  scope.onmessage = (event) => {
    const message = event.data;
    if ("lowersPriority" in message) return void start(message.lowersPriority);
    queue = queue.then(() => start(false)).then(async () => {
      const { id } = message;
      const beat = setInterval(() => scope.postMessage({ progress: id }), PROGRESS_MS);
      const response = await answer(message).finally(() => clearInterval(beat));
      const transfer = response.ok ? [response.rendered.bytes.buffer as ArrayBuffer] : [];
      scope.postMessage(response, transfer);
    });
  };
}

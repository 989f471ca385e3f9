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
import { ownThreadId, psThreads } from "../pool_thread.ts";
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
  /**
   * One cell shared by the process's workers (0: free): a worker holds it while `ps` looks for
   * its thread, so no other worker waits for a `ps` of its own then (`ownThreadId`).
   */
  lookLock: Int32Array;
}

/**
 * Sent once the codecs are compiled: only then may the worker be terminated safely. `nice`: the
 * niceness its thread runs at (Linux), or null where unknown; `tid`: its thread's id (Linux), or
 * null where unknown: the pool samples that thread's CPU time while a job reports no progress
 * (`pool_thread.ts`).
 */
export interface WorkerReady {
  ready: true;
  nice: number | null;
  tid: string | null;
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
 * Sets this worker's thread priority and tells it (Linux; elsewhere null: nothing changes). A
 * worker that `lowers` it (`renice` of its own thread, which an unprivileged process may do)
 * leaves the CPU to the service's event loop and the player on a 2-core show machine while it
 * makes pictures; the local lane keeps the service's priority, so the operator's thumbnail is not
 * starved by busy processes (a thread at niceness 15 gets about 1/30 of a core beside two at 0).
 * Without `ps` or `renice`, or when its thread is not found, the worker keeps the service's
 * priority and lowers no other thread.
 */
async function setPriority(
  setup: WorkerSetup | null,
): Promise<{ nice: number | null; tid: string | null }> {
  const unknown = { nice: null, tid: null };
  if (Deno.build.os !== "linux") return unknown;
  try {
    const tid = await ownThreadId(setup?.lookLock ?? null);
    if (tid === null) return unknown;
    if (setup?.lowersPriority) {
      await new Deno.Command("renice", {
        args: ["-n", String(LOWER_BY), "-p", tid],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
    }
    const nice = (await psThreads("tid=,ni=", false)).find(([t]) => t === tid)?.[1];
    return { nice: nice === undefined ? null : Number(nice), tid };
  } catch {
    return unknown; // no ps or renice: the worker runs at the service's priority
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

/** Starts the worker once: its priority (`setup`, or the service's), its codecs, then `ready`. */
function start(setup: WorkerSetup | null): Promise<unknown> {
  return started ??= setPriority(setup).then(async ({ nice, tid }) => {
    await warmUpCodecs().catch(() => {});
    scope.postMessage({ ready: true, nice, tid });
  });
}

if (isWorker) {
  let queue: Promise<unknown> = Promise.resolve();
  scope.onmessage = (event) => {
    const message = event.data;
    if ("lowersPriority" in message) return void start(message);
    queue = queue.then(() => start(null)).then(async () => {
      const { id } = message;
      const beat = setInterval(() => scope.postMessage({ progress: id }), PROGRESS_MS);
      const response = await answer(message).finally(() => clearInterval(beat));
      const transfer = response.ok ? [response.rendered.bytes.buffer as ArrayBuffer] : [];
      scope.postMessage(response, transfer);
    });
  };
}

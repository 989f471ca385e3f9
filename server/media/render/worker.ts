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

/** Sent once the codecs are compiled: only then may the worker be terminated safely. */
export interface WorkerReady {
  ready: true;
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
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
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

/**
 * Lowers this thread's priority (Linux: `renice` of the worker's thread id,
 * which an unprivileged process may do to its own threads): on a 2-core show
 * machine the service's event loop and the player then win the CPU while
 * pictures are made, and an action waits on no decoder. Elsewhere, or without
 * `renice`, nothing changes.
 */
async function yieldToTheShow(): Promise<void> {
  if (Deno.build.os !== "linux") return;
  try {
    await new Deno.Command("renice", {
      args: ["-n", "15", "-p", await ownThreadId()],
      stdout: "null",
      stderr: "null",
    }).output();
  } catch {
    // No /proc, ps or renice: the worker runs at the service's priority.
  }
}

/**
 * This worker's thread id from /proc/thread-self; Deno opens /proc/self only with `--allow-all`,
 * which the binary does not have, so otherwise from `ps`: Deno names a worker's thread
 * `worker-N`, N counting the workers the process made, so the newest is this one (the OSC
 * port's reader, started with the service, must keep its priority).
 */
async function ownThreadId(): Promise<string> {
  try {
    return Deno.readLinkSync("/proc/thread-self").split("/").pop()!;
  } catch {
    const out = await new Deno.Command("ps", {
      args: ["-L", "-o", "tid=,comm=", "-p", String(Deno.pid)],
      stderr: "null",
    }).output();
    const newest = new TextDecoder().decode(out.stdout).split("\n")
      .map((line) => line.trim().split(/\s+/))
      .map(([tid, name]) => ({ tid: tid!, n: Number(/^worker-(\d+)$/.exec(name ?? "")?.[1]) }))
      .filter(({ n }) => Number.isInteger(n))
      .sort((a, b) => b.n - a.n)[0];
    if (!newest) throw new Error("no worker thread found");
    return newest.tid;
  }
}

const scope = globalThis as unknown as WorkerScope;
// Inside a worker only: `WorkerGlobalScope` exists there and not on the main thread.
const isWorker = "WorkerGlobalScope" in globalThis;
// Jobs wait for the codecs, compiled as soon as the worker starts; a failure shows in the first job.
// Terminating a worker while V8 still compiles its WASM aborts the whole process (Deno 2.9.6:
// "Check failed: (validate_functions_job_handle_) == nullptr"), so the pool waits for `ready`.
let queue: Promise<unknown> = isWorker
  ? yieldToTheShow().then(() => warmUpCodecs()).catch(() => {})
    .then(() => scope.postMessage({ ready: true }))
  : Promise.resolve();
if (isWorker) {
  scope.onmessage = (event) => {
    queue = queue.then(async () => {
      const { id } = event.data;
      const beat = setInterval(() => scope.postMessage({ progress: id }), PROGRESS_MS);
      const response = await answer(event.data).finally(() => clearInterval(beat));
      const transfer = response.ok ? [response.rendered.bytes.buffer as ArrayBuffer] : [];
      scope.postMessage(response, transfer);
    });
  };
}

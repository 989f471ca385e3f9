/**
 * Running ffmpeg for one job: its output read from a pipe (no temporary
 * files), its stderr kept for the message, and a deadline after which it is
 * killed, so a stuck ffmpeg never holds a worker.
 * @module
 */

/** How a run of ffmpeg ended, when it did not produce what was asked. */
export class FfmpegError extends Error {
  /** `missing`: could not be started; `failed`: non-zero exit; `timeout`: killed at the deadline. */
  readonly reason: "missing" | "failed" | "timeout";
  /** Builds the error. */
  constructor(reason: FfmpegError["reason"], message: string) {
    super(message);
    this.name = "FfmpegError";
    this.reason = reason;
  }
}

/** Options of one run. */
export interface FfmpegRun {
  /** Path or command name of ffmpeg. */
  command: string;
  args: string[];
  /** Milliseconds before ffmpeg is killed. */
  deadlineMs: number;
  /** Called with each piece of stdout as it arrives. */
  onData(chunk: Uint8Array): void;
}

/** Runs ffmpeg, streaming its stdout to `onData`; rejects with an FfmpegError. */
export async function runFfmpeg(run: FfmpegRun): Promise<void> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(run.command, {
      args: ["-nostdin", "-hide_banner", "-loglevel", "error", ...run.args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    throw new FfmpegError("missing", `Cannot start ffmpeg "${run.command}": ${errorName(error)}`);
  }
  let isTimedOut = false;
  const timer = setTimeout(() => {
    isTimedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, run.deadlineMs);
  try {
    const [, stderr, status] = await Promise.all([
      pump(child.stdout, run.onData),
      collectTail(child.stderr),
      child.status,
    ]);
    if (isTimedOut) {
      throw new FfmpegError("timeout", `ffmpeg did not finish within ${run.deadlineMs} ms`);
    }
    if (!status.success) {
      const detail = stderr.trim().split("\n").pop() ?? "";
      throw new FfmpegError("failed", `ffmpeg exited with code ${status.code}: ${detail}`);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Runs ffmpeg and returns its whole stdout (for small outputs such as one frame). */
export async function ffmpegOutput(
  options: Omit<FfmpegRun, "onData"> & { maxBytes: number },
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  await runFfmpeg({
    ...options,
    onData(chunk) {
      size += chunk.length;
      if (size <= options.maxBytes) parts.push(chunk);
    },
  });
  if (size > options.maxBytes) {
    throw new FfmpegError("failed", `ffmpeg wrote more than ${options.maxBytes} bytes`);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

async function pump(stream: ReadableStream<Uint8Array>, onData: (c: Uint8Array) => void) {
  for await (const chunk of stream) onData(chunk);
}

/** The last 2 KiB of a stream, as text (ffmpeg's error is at the end). */
async function collectTail(stream: ReadableStream<Uint8Array>): Promise<string> {
  let tail = new Uint8Array();
  for await (const chunk of stream) {
    const joined = new Uint8Array(tail.length + chunk.length);
    joined.set(tail);
    joined.set(chunk, tail.length);
    tail = joined.subarray(Math.max(0, joined.length - 2048));
  }
  return new TextDecoder().decode(tail);
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "unknown error";
}

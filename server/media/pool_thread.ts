/**
 * The threads of the picture pool's workers, seen with `ps` (Linux): a worker finds its own
 * thread id (`ownThreadId`, in the worker), and the pool samples a worker's thread (its state
 * and CPU time, `sampleThread`) to tell a worker busy in a synchronous decode, whose event loop
 * cannot report progress, from one that is hung. Deno refuses /proc to a process without
 * `--allow-all` (the binary has not), so `ps`, which the system unit lets the service run,
 * reads it for us.
 * @module
 */

/** Looks for this worker's thread at most this many times (it may not wait yet when ps looks). */
const LOOKS = 5;
/** Waits for another worker's look at most this many times 100 ms, then looks for none. */
const LOCK_WAITS = 100;

/** Runs `ps` for this process's threads with `fields`: rows of words. */
export function psThreads(fields: string, sync: true): string[][];
/** Runs `ps` for this process's threads with `fields`, without blocking: rows of words. */
export function psThreads(fields: string, sync: false): Promise<string[][]>;
/** Runs `ps` for this process's threads with `fields`: rows of words. */
export function psThreads(fields: string, sync: boolean): string[][] | Promise<string[][]> {
  const command = new Deno.Command("ps", {
    args: ["-L", "-o", fields, "-p", String(Deno.pid)],
    stdin: "null",
    stderr: "null",
  });
  const rows = (out: Deno.CommandOutput) =>
    new TextDecoder().decode(out.stdout).split("\n").map((l) => l.trim().split(/\s+/));
  return sync ? rows(command.outputSync()) : command.output().then(rows);
}

/**
 * The calling worker's thread id. With `--allow-all`, /proc/thread-self; without (the binary),
 * Deno opens no /proc/self, so from `ps`, run synchronously: while it reads the threads, this one
 * waits for it (in the kernel's `do_wait`), and no other does (event loops wait in epoll, Deno's
 * own threads on futexes, ffmpeg's runs are waited for asynchronously). Exact, whatever other
 * workers start meanwhile, as the workers look one at a time (`lock`): until issue 42 it was "the
 * newest worker thread", so the first worker and the local lane, started together, both lowered
 * the lane's. Null when no thread waits (this one was not waiting yet) `LOOKS` times, or without
 * the lock (a worker sent a job first has none).
 */
export async function ownThreadId(lock: Int32Array | null): Promise<string | null> {
  try {
    return Deno.readLinkSync("/proc/thread-self").split("/").pop()!;
  } catch {
    if (lock === null) return null;
    for (let look = 0; look < LOOKS; look++) {
      const waiting = underLock(lock, () => psThreads("tid=,comm=,wchan:32=", true))
        ?.filter(([, comm, wchan]) => comm?.startsWith("worker-") && wchan === "do_wait");
      if (waiting === undefined) return null;
      if (waiting.length === 1) return waiting[0]![0]!;
      await new Promise((r) => setTimeout(r, 0)); // let the others look
    }
    return null;
  }
}

/**
 * Runs `f` holding `lock` (blocking this worker's thread, never the service's), or returns
 * undefined after `LOCK_WAITS` waits: a worker is never ended while it looks (the pool ends one
 * only once `ready`), so a lock held that long is one no worker will free.
 */
function underLock<T>(lock: Int32Array, f: () => T): T | undefined {
  for (let waits = 0; Atomics.compareExchange(lock, 0, 0, 1) !== 0; waits++) {
    if (waits === LOCK_WAITS) return undefined;
    Atomics.wait(lock, 0, 1, 100);
  }
  try {
    return f();
  } finally {
    Atomics.store(lock, 0, 0);
    Atomics.notify(lock, 0, 1);
  }
}

/** One look at a worker's thread (`sampleThread`). */
export interface ThreadSample {
  /** Running, or runnable and waiting for a CPU (`ps` state `R`): it is working now. */
  isRunning: boolean;
  /** The CPU time it has used, whole seconds (`ps` counts no finer). */
  cpuSeconds: number;
}

/** `[DD-]HH:MM:SS` (ps's `time`) in seconds; NaN when it is not that. */
export function psSeconds(time: string): number {
  const match = /^(?:(\d+)-)?(\d+):(\d+):(\d+)$/.exec(time);
  if (!match) return NaN;
  const [, days = "0", h, m, s] = match;
  return ((Number(days) * 24 + Number(h)) * 60 + Number(m)) * 60 + Number(s);
}

/**
 * The state and CPU time of this process's thread `tid`, from `ps -L -o tid=,stat=,time=`; null
 * when the thread is gone or `ps` cannot tell (no `ps`: the caller knows nothing more).
 */
export async function sampleThread(tid: string): Promise<ThreadSample | null> {
  try {
    const row = (await psThreads("tid=,stat=,time=", false)).find(([t]) => t === tid);
    const cpuSeconds = psSeconds(row?.[2] ?? "");
    if (!row || Number.isNaN(cpuSeconds)) return null;
    return { isRunning: row[1]!.startsWith("R"), cpuSeconds };
  } catch {
    return null;
  }
}

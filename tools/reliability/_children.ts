/**
 * The processes and temp dirs the probes make, so an interrupted run
 * (Ctrl-C, SIGTERM) can end and remove them instead of leaving them behind.
 * @module
 */

const running = new Set<Deno.ChildProcess>();
const dirs = new Set<string>();
const cleanups = new Set<() => void>();

/**
 * Runs `cleanup` (synchronous) if the run is interrupted: what a probe made
 * beyond processes and dirs (network namespaces). Returns the function that forgets it.
 */
export function onKill(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** Remembers a started process until it exits. */
export function track(child: Deno.ChildProcess): void {
  running.add(child);
  child.status.finally(() => running.delete(child));
}

/** Makes a temp dir that an interrupted run removes; `remove` it when done. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await Deno.makeTempDir({ prefix });
  dirs.add(path);
  return {
    path,
    async remove() {
      dirs.delete(path);
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * SIGKILLs every process still running (a service's player ends with its stdin), removes the
 * dirs, runs the cleanups of `onKill`.
 */
export function killAll(): void {
  for (const child of running) {
    try {
      child.kill("SIGKILL");
    } catch {
      // exited meanwhile
    }
  }
  for (const path of dirs) {
    try {
      Deno.removeSync(path, { recursive: true });
    } catch {
      // a process still writing there, or gone already
    }
  }
  for (const cleanup of cleanups) cleanup();
}

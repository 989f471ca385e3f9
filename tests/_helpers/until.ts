/** Waiting for something that happens off the request path (a background write), without fixed sleeps. */

/**
 * Resolves once `check` holds, polling every 20 ms; rejects after `timeoutMs`
 * (default 15 s) naming `what`, rather than hang.
 */
export async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The parsed JSON file at `path`, or undefined while it is missing or not whole. */
export async function readJsonIfThere(path: string): Promise<unknown> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch {
    return undefined;
  }
}

/**
 * A browser asked over DevTools by a test: with a hang guard, not the 5 s a request of
 * `DevTools.send` waits by default. A browser just started on a loaded machine (CI at load 10)
 * took longer than that to answer `Target.getTargets`; the test around the question bounds it
 * already.
 * @module
 */
import type { DevTools } from "../../player/output/devtools.ts";

/** How long a test waits for the browser to answer one command: a hang guard, not a deadline. */
export const HANG_GUARD_MS = 120_000;

/** `devtools.send(method, params, options)`, waiting for the answer up to `HANG_GUARD_MS`. */
export function ask<T>(
  devtools: DevTools,
  method: string,
  params: Record<string, unknown> = {},
  options: { sessionId?: string } = {},
): Promise<T> {
  return devtools.send<T>(method, params, { ...options, timeoutMs: HANG_GUARD_MS });
}

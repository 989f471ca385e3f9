/**
 * A permission the binary does not hold, told to the operator as one log line
 * naming the flag (`--allow-env`, `--allow-run`...) instead of a stack trace.
 * @module
 */

/** The one line for a refused permission, or null when `error` is something else. */
export function permissionRefusal(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const isRefusal = error instanceof Deno.errors.NotCapable ||
    (error instanceof Deno.errors.PermissionDenied && /--allow-[a-z]+/.test(error.message));
  if (!isRefusal) return null;
  const flag = /--allow-[a-z]+/.exec(error.message)?.[0] ?? "a permission flag";
  const what = /Requires (.+?), run again/.exec(error.message)?.[1] ?? error.message;
  return `Permission refused: ${what} is not granted by ${flag} in this build ` +
    `(docs/deployment.md, "Permissions")`;
}

/**
 * Reports refused permissions that nothing caught as one line to `report` and exits with
 * `exitCode`, as an uncaught error would, but without the stack trace. Other errors keep
 * Deno's own report.
 */
export function reportRefusedPermissions(report: (line: string) => void, exitCode = 1): void {
  const handle = (event: Event, error: unknown) => {
    const line = permissionRefusal(error);
    if (line === null) return;
    event.preventDefault();
    report(line);
    Deno.exit(exitCode);
  };
  globalThis.addEventListener("unhandledrejection", (e) => handle(e, e.reason));
  globalThis.addEventListener("error", (e) => handle(e, e.error));
}

/**
 * A stand-in for the check's worker that loads and then makes no progress
 * at all (a checker's fault): it never reports, never answers.
 * @module
 */
const scope = globalThis as unknown as { postMessage(m: unknown): void; onmessage: unknown };
scope.onmessage = () => {};
scope.postMessage({ ready: true });

/**
 * A stand-in for the picture worker that is ready and then makes no progress
 * at all on its job: no report, no answer.
 * @module
 */
const scope = globalThis as unknown as { postMessage(m: unknown): void; onmessage: unknown };
scope.onmessage = () => {};
scope.postMessage({ ready: true });

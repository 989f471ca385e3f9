/**
 * `parseIsf` on a worker thread: the GLSL parser and its preprocessor can
 * take seconds on hostile code (a macro that expands exponentially, a
 * 100 000-term expression), and the player's thread runs the show's clock.
 * `parseIsfApart` starts one per check and ends it after its answer or its
 * deadline. It says `{ready: true}` once loaded; then request `{code, kind}`,
 * answer the `IsfResult`.
 * @module
 */
import { type IsfKind, parseIsf } from "./parse.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<{ code: string; kind: IsfKind }>) => void) | null;
  postMessage(message: unknown): void;
}

const scope = globalThis as unknown as WorkerScope;
if ("WorkerGlobalScope" in globalThis) {
  scope.onmessage = (event) => scope.postMessage(parseIsf(event.data.code, event.data.kind));
  scope.postMessage({ ready: true });
}

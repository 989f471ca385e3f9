/**
 * `parseIsf` on a worker thread: the GLSL parser is slow (tens of microseconds
 * a character) and the player's thread runs the show's clock. `parseIsfApart`
 * starts one per check and ends it after its answer. It says `{ready: true}`
 * once loaded; then request `{code, kind, bounds}`: it reports
 * `{progress: work}` as it works (every 1024 units of counted work) and
 * answers `{result: IsfResult}`.
 * @module
 */
import type { IsfCheckBounds } from "./bounds.ts";
import { type IsfKind, parseIsf } from "./parse.ts";

/** What `parseIsfApart` asks of the worker. */
export interface IsfCheckRequest {
  readonly code: string;
  readonly kind: IsfKind;
  readonly bounds?: Partial<IsfCheckBounds>;
}

interface WorkerScope {
  onmessage: ((event: MessageEvent<IsfCheckRequest>) => void) | null;
  postMessage(message: unknown): void;
}

const scope = globalThis as unknown as WorkerScope;
if ("WorkerGlobalScope" in globalThis) {
  scope.onmessage = ({ data }) => {
    const onProgress = (work: number) => scope.postMessage({ progress: work });
    const result = parseIsf(data.code, data.kind, { onProgress, bounds: data.bounds ?? {} });
    scope.postMessage({ result });
  };
  scope.postMessage({ ready: true });
}

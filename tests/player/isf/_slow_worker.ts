/**
 * A stand-in for the check's worker that is slow but makes progress: ten
 * progress reports, then the answer (a valid check, no program).
 * @module
 */
const scope = globalThis as unknown as {
  postMessage(m: unknown): void;
  onmessage: (() => void) | null;
};
scope.onmessage = () => {
  for (let work = 1024; work <= 10 * 1024; work += 1024) scope.postMessage({ progress: work });
  scope.postMessage({ result: { ok: false, problems: [{ line: 1, column: 1, message: "slow" }] } });
};
scope.postMessage({ ready: true });

/**
 * `parseIsf` off the player's thread, with a deadline: code whose check
 * takes longer is refused, and a live show's clock never waits on it.
 * @module
 */
import type { IsfKind, IsfResult } from "./parse.ts";

/** How long one check may take; typical shaders take under 10 ms (`bench/isf_bench.ts`). */
export const ISF_CHECK_DEADLINE_MS = 3000;

/**
 * `parseIsf(code, kind)` on a worker (`worker.ts`) that ends after its answer
 * or after `deadlineMs` of checking (its loading is not counted), when the
 * answer is one problem saying so; a check that fails on the worker is one
 * problem too.
 */
export async function parseIsfApart(
  code: string,
  kind: IsfKind,
  deadlineMs = ISF_CHECK_DEADLINE_MS,
): Promise<IsfResult> {
  const worker = new Worker(new URL("./worker.ts", import.meta.url).href, { type: "module" });
  const answer = Promise.withResolvers<IsfResult>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  worker.onmessage = (event: MessageEvent<IsfResult | { ready: true }>) => {
    if (!("ready" in event.data)) return answer.resolve(event.data);
    worker.postMessage({ code, kind });
    timer = setTimeout(() => answer.resolve(tooLong(deadlineMs)), deadlineMs);
  };
  // A check that throws on its worker refuses the code (a 422, never a 500), saying why.
  worker.onerror = (event) => {
    event.preventDefault();
    const message = `the code could not be checked: ${event.message}`;
    answer.resolve({ ok: false, problems: [{ line: 1, column: 1, message }] });
  };
  try {
    return await answer.promise;
  } finally {
    clearTimeout(timer);
    worker.terminate();
  }
}

function tooLong(deadlineMs: number): IsfResult {
  const message = `checking the code took more than ${
    deadlineMs / 1000
  } s: it is too big, or a macro expands without bound`;
  return { ok: false, problems: [{ line: 1, column: 1, message }] };
}

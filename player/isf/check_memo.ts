/**
 * The verdicts of recent ISF checks, by code and kind. A check is deterministic (bounded by
 * work, `bounds.ts`): the same code gets the same result, so a shader edit checks its code
 * beside the player's order of requests (`player/edits/mod.ts`) and the turn that applies it
 * reads the result here instead of checking again while every action waits.
 * @module
 */
import { parseIsfApart } from "./apart.ts";
import type { IsfKind, IsfResult } from "./parse.ts";

/** How many results are kept (the code of each is at most 64 KiB, `ISF_CHECK_BOUNDS`). */
const KEPT = 16;

/** Checks by code and kind, each run once while it is kept. */
export class IsfCheckMemo {
  readonly #run: (code: string, kind: IsfKind) => Promise<IsfResult>;
  readonly #results = new Map<string, Promise<IsfResult>>();

  /** `run` checks one code (the bounded check on its worker by default). */
  constructor(run: (code: string, kind: IsfKind) => Promise<IsfResult> = parseIsfApart) {
    this.#run = run;
  }

  /**
   * The result of checking `code` as `kind`: the one kept, else a new check. A check that
   * fails (no verdict: its worker stalled) is not kept. Each caller gets its own copy.
   */
  check(code: string, kind: IsfKind): Promise<IsfResult> {
    const id = `${kind}\u0000${code}`;
    let result = this.#results.get(id);
    if (result) this.#results.delete(id); // kept again as the newest
    else {
      result = this.#run(code, kind);
      result.catch(() => this.#results.get(id) === result && this.#results.delete(id));
    }
    this.#results.set(id, result);
    while (this.#results.size > KEPT) this.#results.delete(this.#results.keys().next().value!);
    return result.then((r) => structuredClone(r));
  }
}

/** The player's checks (one process, one memo). */
export const ISF_CHECKS: IsfCheckMemo = new IsfCheckMemo();

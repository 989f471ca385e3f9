/**
 * The retry keys of the editor: per Project, the keys its edits were applied
 * with (saved with the Project, `applied_keys.ts`), and the keys of batches
 * still out of the order (copying files, or having their code checked), so
 * that a retry gets the first's outcome and is applied once.
 * @module
 */
import type { EditApplyResult } from "../../protocol/edits/mod.ts";
import { type AppliedKey, withAppliedKey } from "../applied_keys.ts";
import { Beside } from "../beside.ts";

/** The retry keys of every open Project and of the batches in flight. */
export class RetryKeys {
  /** Per Project, the retry keys its edits were applied with (saved with the Project). */
  #applied = new Map<string, AppliedKey[]>();
  /** Keys of batches still out of the order, with the outcome of their commit. */
  #inFlight = new Map<string, Promise<EditApplyResult>>();

  /** The retry keys loaded with the Projects (`ProjectStore.loadProjects`). */
  setAll(keys: Map<string, AppliedKey[]>): void {
    this.#applied = new Map(keys);
  }

  /** The retry keys of one Project. */
  set(projectId: string, keys: AppliedKey[]): void {
    this.#applied.set(projectId, keys);
  }

  /** Forgets the retry keys of a Project that went. */
  forget(projectId: string): void {
    this.#applied.delete(projectId);
  }

  /** The retry keys of a Project, if it has any. */
  of(projectId: string): AppliedKey[] | undefined {
    return this.#applied.get(projectId);
  }

  /** The keys of a Project with `key` added for `result` (when given), to save with it. */
  with(
    projectId: string,
    key: string | undefined,
    result: EditApplyResult,
  ): AppliedKey[] | undefined {
    const keys = this.#applied.get(projectId);
    return key === undefined ? keys : withAppliedKey(keys ?? [], key, result);
  }

  /** Holds `outcome` under `key` until it settles: a retry meanwhile gets it. */
  track(key: string | undefined, outcome: Promise<EditApplyResult>): void {
    if (key === undefined) return;
    this.#inFlight.set(key, outcome);
    outcome.finally(() => this.#inFlight.delete(key)).catch(() => {});
  }

  /**
   * The answer to a retry of the batch `key` names in Project `projectId`: the
   * first's result once committed, or, while the first is still out of the
   * order, a turn right after the first's commit that answers its outcome;
   * null for a new key.
   */
  again(
    projectId: string,
    key: string,
  ): Promise<EditApplyResult> | Beside<EditApplyResult> | null {
    const applied = this.#applied.get(projectId)?.find((k) => k.key === key);
    if (applied) return Promise.resolve(structuredClone(applied.result));
    const first = this.#inFlight.get(key);
    if (!first) return null;
    return new Beside(first.then(
      (result) => () => structuredClone(result),
      (error) => () => Promise.reject(error),
    ));
  }
}

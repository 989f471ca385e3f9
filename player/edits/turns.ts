/**
 * The editor's turns. Commits take turns: the player's request order runs one
 * at a time already, but the editor window's edits (`output/editor_page.ts`)
 * come from beside it, and a commit awaits (an ISF check, the disk) between
 * reading the Project and writing it. A batch whose code is checked leaves the
 * order meanwhile (`afterChecks`).
 * @module
 */
import type { EditApplyResult } from "../../protocol/edits/mod.ts";
import { Beside } from "../beside.ts";
import type { RetryKeys } from "./retry_keys.ts";

/** One commit at a time, in the order they were asked for. */
export class Turns {
  #turn: Promise<unknown> = Promise.resolve();
  /** Batches out of the order while their code is checked (`afterChecks`). */
  #besides = 0;
  #keys: RetryKeys;

  /** Turns whose batches out of the order hold their retry keys in `keys`. */
  constructor(keys: RetryKeys) {
    this.#keys = keys;
  }

  /** Whether a batch is out of the order (every batch then goes out, behind it). */
  get hasBesides(): boolean {
    return this.#besides > 0;
  }

  /** Runs `work` once the commits before it have settled. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#turn.then(work);
    this.#turn = result.catch(() => {});
    return result;
  }

  /**
   * A batch that leaves the order while the ISF code it carries is checked (`checks`, on
   * workers), so actions read after it are answered meanwhile. Its turn among commits is
   * taken now (an edit of the editor page read later is built on it), and it commits once its
   * checks are done; while one is out, every batch goes out (behind it in the turns), so
   * none holds the order waiting for its turn. A retry of its `key` meanwhile gets its outcome.
   */
  afterChecks(
    checks: Promise<void> | null,
    key: string | undefined,
    commit: () => Promise<EditApplyResult>,
  ): Beside<EditApplyResult> {
    this.#besides++;
    const result = this.run(async () => {
      await checks;
      return await commit();
    });
    result.finally(() => this.#besides--).catch(() => {});
    this.#keys.track(key, result);
    return new Beside(result.then((value) => () => value, (error) => () => Promise.reject(error)));
  }
}

/**
 * The retry keys of actions (`idempotencyKey` of `action.run`) and the
 * outcome each got. They are saved in `live.json` with the show state the
 * actions changed (`live_state.ts`), in the same write: after a crash either
 * both the effect and its key are back, or neither is and a retry applies it.
 * @module
 */
import { z } from "zod";
import type { ActionOutcome } from "../protocol/methods.ts";

/** How many keys are kept: a retry comes within seconds, not after 256 other keyed actions. */
export const ACTION_KEYS_KEPT = 256;

/** One key and its outcome, as saved. */
export const ActionKey = z.object({
  key: z.string(),
  outcome: z.object({ applied: z.boolean(), message: z.string() }),
});
/** One key and its outcome. */
export type ActionKey = z.infer<typeof ActionKey>;

/** The keys an app applied actions with, oldest first. */
export class ActionKeys {
  #keys = new Map<string, ActionOutcome>();

  /** The outcome a key got, if it was applied. */
  get(key: string): ActionOutcome | undefined {
    return this.#keys.get(key);
  }

  /** Records a key's outcome, forgetting the oldest past `ACTION_KEYS_KEPT`. */
  set(key: string, outcome: ActionOutcome): void {
    this.#keys.set(key, outcome);
    if (this.#keys.size > ACTION_KEYS_KEPT) this.#keys.delete(this.#keys.keys().next().value!);
  }

  /** For the live state file. */
  toJSON(): ActionKey[] {
    return [...this.#keys].map(([key, outcome]) => ({ key, outcome }));
  }

  /** Replaces the keys with saved ones. */
  load(saved: readonly ActionKey[]): void {
    this.#keys = new Map(saved.map((k) => [k.key, k.outcome]));
  }
}

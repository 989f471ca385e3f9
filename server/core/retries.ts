/**
 * Safe retries of the core's writes: a repeat of a client's key gets the
 * first outcome (`idempotency.ts`), and the player gets a key of its own for
 * the same write.
 * @module
 */
import type { IdempotencyStore, RetryKey } from "./idempotency.ts";

/**
 * Runs `run` once per client and key of `retry`, with the key the player gets:
 * `client/key`, so a client's keys never meet another client's there either.
 * @example
 * ```ts
 * runOnce(store, retry, `edit ${JSON.stringify(body)}`, (key) => send(body, key));
 * ```
 */
export function runOnce<T>(
  store: IdempotencyStore,
  retry: RetryKey,
  fingerprint: string,
  run: (playerKey: string) => Promise<T>,
): Promise<T> {
  return store.run(retry.client, retry.key, fingerprint, () => run(`${retry.client}/${retry.key}`));
}

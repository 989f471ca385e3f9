/**
 * The retry keys a Project's edits were applied with (`idempotencyKey` of
 * `edit.apply`): kept in `project.json` beside the Project, in the same atomic
 * write as the change, so a player restarted after a crash still knows which
 * keys it applied and answers a retry with the first result. Beside the store,
 * which reads them with the Project, and below the editor, which adds them: so
 * the store imports nothing of `edits/`.
 * @module
 */
import { z } from "zod";
import type { EditApplyResult } from "../protocol/edits/mod.ts";

/** One applied key and the result it got. */
export interface AppliedKey {
  key: string;
  at: string;
  result: EditApplyResult;
}

/** How many keys a Project keeps: a retry comes within seconds, not after 64 other edits. */
export const APPLIED_KEYS_KEPT = 64;

const AppliedKeys = z.array(
  z.object({ key: z.string(), at: z.string(), result: z.looseObject({}) }),
);

/** The keys stored in a raw `project.json`; none when the field is missing or malformed. */
export function readAppliedKeys(raw: unknown): AppliedKey[] {
  const field = (raw as { appliedKeys?: unknown } | null)?.appliedKeys;
  const parsed = AppliedKeys.safeParse(field);
  return parsed.success ? parsed.data as unknown as AppliedKey[] : [];
}

/** `keys` with one more, the oldest dropped past `APPLIED_KEYS_KEPT`. */
export function withAppliedKey(
  keys: readonly AppliedKey[],
  key: string,
  result: EditApplyResult,
): AppliedKey[] {
  return [...keys, { key, at: new Date().toISOString(), result }].slice(-APPLIED_KEYS_KEPT);
}

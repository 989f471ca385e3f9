/**
 * The `edit.apply` method of the player protocol, as zod schemas with their
 * inferred types: its params (one edit or a batch of them) and its result.
 * The params of each edit are checked afterwards against the edit catalog
 * (`mod.ts`), which names their fields itself.
 * @module
 */
import { z } from "zod";

/** The most edits one batch may hold. */
export const MAX_BATCH_EDITS = 100;

/** One edit as sent: a name and its params, checked against the catalog entry of that name. */
export const EditRequest = z.object({ name: z.string(), params: z.unknown() });

/** The `edit.apply` parameters of the player protocol. */
export const EditApplyParams = z.object({
  /** Target Project; null (or absent) means the active one. */
  projectId: z.string().min(1).nullable().default(null),
  edits: z.array(EditRequest).min(1).max(MAX_BATCH_EDITS),
  /** True for a file that was uploaded to a staging path: the player moves it instead of copying. */
  isUpload: z.boolean().optional(),
  /**
   * The client's retry key (protocol 1.2): a player applies a key at most once
   * and answers a repeat with the first result (docs/player-protocol.md).
   */
  idempotencyKey: z.string().max(512).optional(),
  /**
   * The seed of the ids the batch makes (protocol 1.12): a rig group's log
   * entry (`r<etcd revision>`), so every rig makes the same ids (docs/rigs.md).
   */
  seed: z.string().min(1).max(128).optional(),
});

/** What one edit did. */
export const EditOutcome = z.strictObject({
  name: z.string(),
  message: z.string(),
  /** Ids of the items it created, by field name (`clipID`, `songID`, `fileId`, ...). */
  created: z.record(z.string(), z.string()).optional(),
  /** A value beyond the message (`preset.validate`: `{valid, problems}`). */
  result: z.unknown().optional(),
});

/**
 * The `edit.apply` result. Strict, unlike the other results: the service
 * passes it on to its clients as it is (`EditResultView` in the core adds
 * `ok`), so it is the answer's shape too.
 */
export const EditApplyResult = z.strictObject({
  projectId: z.string(),
  /** The Project's revision after the edit (unchanged when nothing changed). */
  revision: z.number().int(),
  edits: z.array(EditOutcome),
  /** What changed, by kind: ids of items set or removed. */
  changed: z.strictObject({
    clips: z.array(z.string()),
    songs: z.array(z.string()),
    fields: z.array(z.string()),
    presets: z.array(z.string()),
  }),
  /** Steps that can be undone and redone now. */
  history: z.strictObject({ undo: z.number().int(), redo: z.number().int() }),
});

/** Derived types. */
export type EditRequest = z.infer<typeof EditRequest>;
export type EditApplyParams = z.infer<typeof EditApplyParams>;
export type EditOutcome = z.infer<typeof EditOutcome>;
export type EditApplyResult = z.infer<typeof EditApplyResult>;

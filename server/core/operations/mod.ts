/**
 * The operation catalog: every query, action, edit, security and service
 * operation, declared once. Transports look operations up here and keep only
 * their wire mapping (docs/architecture.md, "The operation catalog").
 * @module
 */
import { actionOperation, healthOperation, refreshOperation } from "./control.ts";
import { EDIT_OPERATIONS } from "./edits.ts";
import type { AnyOperation, OperationKind } from "./operation.ts";
import { QUERY_OPERATIONS } from "./queries.ts";
import { SECURITY_OPERATIONS } from "./security.ts";
import { MEDIA_OPERATIONS } from "./media_operations.ts";
import { SESSION_OPERATIONS } from "./session.ts";
import { DESCRIBE_OPERATIONS } from "./describe.ts";
import { SHOW_OPERATIONS } from "./show_operations.ts";
import { displaysOperation } from "./displays.ts";
import { timecodeOperation } from "./timecode.ts";
import { MIDI_OPERATIONS } from "./midi.ts";
import { groupOperation } from "./group.ts";

export * from "./operation.ts";
export { transportsOf } from "./carriers.ts";
export { EditResultView, type UploadInput, type UploadPart } from "./edits.ts";
export * from "./media.ts";
export type * from "./security_service.ts";
export * from "./session_service.ts";
export type * from "./midi_service.ts";
export { ShowDownload, type ShowUploadInput } from "./show_operations.ts";

/** Every operation. */
export const OPERATIONS: readonly AnyOperation[] = [
  healthOperation,
  ...QUERY_OPERATIONS,
  actionOperation,
  ...SECURITY_OPERATIONS,
  refreshOperation,
  ...EDIT_OPERATIONS,
  ...MEDIA_OPERATIONS,
  ...SHOW_OPERATIONS,
  ...SESSION_OPERATIONS,
  ...DESCRIBE_OPERATIONS,
  displaysOperation,
  timecodeOperation,
  ...MIDI_OPERATIONS,
  groupOperation,
];

const BY_NAME: ReadonlyMap<string, AnyOperation> = new Map(OPERATIONS.map((o) => [o.name, o]));

/**
 * The operation of that name.
 * @throws {Error} when there is none: a transport names only operations that exist (a test checks)
 */
export function operationNamed(name: string): AnyOperation {
  const operation = BY_NAME.get(name);
  if (!operation) throw new Error(`No operation named "${name}"`);
  return operation;
}

/** The operations of one kind, by name (a transport's lookup table). */
export function operationsOfKind(kind: OperationKind): ReadonlyMap<string, AnyOperation> {
  return new Map(OPERATIONS.filter((o) => o.kind === kind).map((o) => [o.name, o]));
}

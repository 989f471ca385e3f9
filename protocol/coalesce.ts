/**
 * The one coalescing rule for state updates, used where updates are gathered
 * into batches: the player per burst of requests, the service's event bus per
 * window. An update supersedes an earlier one with the same type, project,
 * event and subject (Clip, Control, Song, import or upload job, or the revision of a Project edit)
 * and parameter; a `full` update supersedes everything before it.
 * @module
 */
import type { StateUpdate } from "./state.ts";

/** The key under which an update replaces an earlier one in the same batch. */
export function coalesceKey(update: StateUpdate): string {
  const d = update.data;
  // Each project-edited update carries a patch of its own: none supersedes another.
  const subject = d.clipID ?? d.controlID ?? d.songID ?? d.jobId ?? d.uploadId ??
    (d.event === "project-edited" ? d.revision : "");
  const parameter = d.parameter ?? "";
  return `${update.updateType}|${update.projectId ?? ""}|${d.event}|${subject}|${parameter}`;
}

/**
 * The updates without those a later one supersedes, each kept update at the
 * place of its key's latest change, so a value that changed many times appears
 * once, with its latest value, and applying the result in order leaves the
 * same state as applying them all.
 */
export function coalesceUpdates(updates: readonly StateUpdate[]): StateUpdate[] {
  if (updates.length < 2) return [...updates];
  let from = 0;
  for (let i = updates.length - 1; i > 0; i--) {
    if (updates[i]!.updateType === "full") {
      from = i;
      break;
    }
  }
  const keys: string[] = [];
  const last = new Map<string, number>();
  for (let i = from; i < updates.length; i++) {
    const key = coalesceKey(updates[i]!);
    keys.push(key);
    last.set(key, i);
  }
  const kept: StateUpdate[] = [];
  for (let i = from; i < updates.length; i++) {
    if (last.get(keys[i - from]!) === i) kept.push(updates[i]!);
  }
  return kept;
}

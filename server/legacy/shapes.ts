/**
 * What 5.0.0 clients read, rewritten from the 6.0 answers: the direction
 * `backward` is `reverse` wherever a `direction` field carries it, and state
 * updates are only of the six 5.0.0 types (`appState` and `presets` are
 * dropped: output level and mute also come as `volume`, the rest had no
 * 5.0.0 form).
 * @module
 */
import type { StateUpdate, UpdateType } from "../../protocol/state.ts";
import { isStableAnswer } from "../core/mod.ts";

/** The update types of 5.0.0. */
export const V5_UPDATE_TYPES: ReadonlySet<UpdateType> = new Set([
  "project",
  "playstate",
  "clip",
  "song",
  "volume",
  "full",
]);

/** `JSON.stringify`'s replacer: a `direction` of `backward` as the 5.0.0 word. */
function v5Replacer(key: string, value: unknown): unknown {
  return key === "direction" && value === "backward" ? "reverse" : value;
}

/**
 * Answers already written, by object identity: the read model replaces a
 * stable answer (a Project's full view) instead of mutating it, so one seen
 * again has the same JSON.
 */
const texts = new WeakMap<object, string>();

/** An answer as 5.0.0 JSON text (directions rewritten). */
export function v5Json(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (!isStableAnswer(value)) return JSON.stringify(value, v5Replacer);
  let text = texts.get(value);
  if (text === undefined) texts.set(value, text = JSON.stringify(value, v5Replacer));
  return text;
}

/** The updates a 5.0.0 client gets, as JSON; null when none of them is of a 5.0.0 type. */
export function v5UpdatesJson(updates: readonly StateUpdate[]): string | null {
  const kept = updates.every((u) => V5_UPDATE_TYPES.has(u.updateType))
    ? updates
    : updates.filter((u) => V5_UPDATE_TYPES.has(u.updateType));
  return kept.length === 0 ? null : JSON.stringify(kept, v5Replacer);
}

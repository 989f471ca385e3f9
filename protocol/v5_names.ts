/**
 * The 5.0.0 names of the catalog's actions, by one rule from their 6.0
 * names. Shared: the 5.0.0 port translates them (`server/legacy/`), and the
 * 6.0 port's refusal of a 5.0.0 name or body names the 6.0 action.
 * @module
 */
import { ACTIONS, type ActionSpec } from "./actions.ts";

/**
 * The 5.0.0 name of a catalog action: `_IN` dropped, each word capitalized,
 * `Action` appended (`PLAY_CLIP_BY_INDEX_IN` -> `PlayClipByIndexAction`,
 * `FULLSCREEN_TOGGLE` -> `FullscreenToggleAction`, `PANIC` -> `PanicAction`).
 */
export function v5NameOf(name: string): string {
  const words = name.replace(/_IN$/, "").split("_").filter(Boolean);
  return words.map((w) => w[0]! + w.slice(1).toLowerCase()).join("") + "Action";
}

/** The actions 5.0.0 had (every catalog action not marked `since: "6.0"`), by 5.0.0 name. */
export const V5_ACTIONS: ReadonlyMap<string, ActionSpec> = new Map(
  ACTIONS.filter((a) => a.since !== "6.0").map((a) => [v5NameOf(a.name), a]),
);

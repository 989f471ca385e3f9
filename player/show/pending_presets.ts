/**
 * The presets an import adds wait in `projects/<id>/presets.pending.json`
 * (`import.ts`) until the app merges them into `presets.json`: when it adopts
 * the Project, or at the next start when a kill came first. Merging twice adds
 * nothing twice (a preset whose id is there already is skipped), so a kill
 * between the write of `presets.json` and the removal of the pending file is
 * harmless.
 * @module
 */
import { z } from "zod";
import { type Preset, Preset as PresetSchema } from "../../protocol/model.ts";
import type { ProjectStore } from "../store.ts";
import { PENDING_PRESETS } from "./import.ts";

/**
 * `userPresets` with the pending presets of Project `id` added and saved, the
 * pending file removed; null when there was none.
 * @throws {Error} when `presets.json` cannot be written (the pending file stays for the next try)
 */
export async function mergePendingPresets(
  store: ProjectStore,
  id: string,
  userPresets: readonly Preset[],
  builtIn: readonly Preset[],
): Promise<Preset[] | null> {
  const path = `${store.projectDir(id)}/${PENDING_PRESETS}`;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  let pending: Preset[] = [];
  try {
    pending = z.array(PresetSchema).parse(JSON.parse(text));
  } catch {
    // Written whole by the import (fsync before its rename): unreadable means tampered; nothing to add.
  }
  const known = new Set([...builtIn, ...userPresets].map((p) => p.id));
  const added = pending.filter((p) => !known.has(p.id)).map((p) => ({ ...p, builtIn: false }));
  const merged = [...userPresets, ...added];
  if (added.length > 0) await store.saveUserPresets(merged);
  await Deno.remove(path);
  return merged;
}

/**
 * The presets an import adds wait in `projects/<id>/presets.pending.json`
 * (`import.ts`) until the app merges them into `presets.json`: when it adopts
 * the Project, or at the next start when a kill came first. Merging twice adds
 * nothing twice (a preset already there, same content, is skipped), so a kill
 * between the write of `presets.json` and the removal of the pending file is
 * harmless. The import planned the ids in the order, against the presets then,
 * so a pending preset whose id is here with other content should not happen: if
 * it does, it is not added (the Project uses the preset here), and it is
 * logged and kept in `presets.pending.refused.json`. An unreadable pending file
 * is logged and kept as `presets.pending.unreadable.json`.
 * @module
 */
import { z } from "zod";
import { type Preset, Preset as PresetSchema } from "../../protocol/model.ts";
import type { ProjectStore } from "../store.ts";
import { contentOf } from "./ids.ts";
import { PENDING_PRESETS } from "./import.ts";

/** Where pending presets refused for an id clash are kept, in the Project's folder. */
export const REFUSED_PRESETS = "presets.pending.refused.json";
/** Where an unreadable pending file is kept, in the Project's folder. */
export const UNREADABLE_PRESETS = "presets.pending.unreadable.json";

/** The player's default log: a warning on stderr, as `player/mod.ts` writes them. */
const warn = (message: string) => console.error(`[player] warn: ${message}`);

/**
 * `userPresets` with the pending presets of Project `id` added and saved, the
 * pending file removed; null when there was none. `log` hears one line for a
 * refused preset or an unreadable file.
 * @throws {Error} when `presets.json` cannot be written (the pending file stays for the next try)
 */
export async function mergePendingPresets(
  store: ProjectStore,
  id: string,
  userPresets: readonly Preset[],
  builtIn: readonly Preset[],
  log: (message: string) => void = warn,
): Promise<Preset[] | null> {
  const dir = store.projectDir(id);
  const path = `${dir}/${PENDING_PRESETS}`;
  const pending = await readPending(path, id, log);
  if (pending === null) return null;
  const known = new Map([...builtIn, ...userPresets].map((p) => [p.id, p]));
  const clashing = pending.filter((p) => known.has(p.id) && !isSame(known.get(p.id)!, p));
  const added = pending.filter((p) => !known.has(p.id)).map((p) => ({ ...p, builtIn: false }));
  const merged = [...userPresets, ...added];
  if (added.length > 0) await store.saveUserPresets(merged);
  if (clashing.length > 0) {
    await Deno.writeTextFile(`${dir}/${REFUSED_PRESETS}`, JSON.stringify(clashing, null, 2));
    const ids = clashing.map((p) => `"${p.id}"`).join(", ");
    log(
      `Project "${id}": pending preset ${ids} not added: a preset of other content has its id ` +
        `(kept in projects/${id}/${REFUSED_PRESETS})`,
    );
  }
  await Deno.remove(path).catch(() => {});
  return merged;
}

/** Same content, whatever the quarantine (`ids.ts`). */
function isSame(a: Preset, b: Preset): boolean {
  return contentOf(a) === contentOf(b);
}

/** The pending presets at `path`; null when none; [] when unreadable (then kept aside, logged). */
async function readPending(
  path: string,
  id: string,
  log: (message: string) => void,
): Promise<Preset[] | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  try {
    return z.array(PresetSchema).parse(JSON.parse(text));
  } catch (error) {
    // Written whole by the import (fsync before its rename): unreadable means tampered.
    const aside = `${path.slice(0, path.lastIndexOf("/"))}/${UNREADABLE_PRESETS}`;
    await Deno.rename(path, aside);
    const reason = error instanceof z.ZodError ? "not a list of presets" : (error as Error).message;
    log(
      `Project "${id}": ${PENDING_PRESETS} cannot be read (${reason}); ` +
        `kept as projects/${id}/${UNREADABLE_PRESETS}`,
    );
    return [];
  }
}

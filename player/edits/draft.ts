/**
 * What an edit handler works on: a private copy of the Project and of the
 * user presets. Handlers change the copy; the editor diffs it against the
 * original, so an edit that throws changes nothing.
 * @module
 */
import type { MediaFile, Preset, PresetImage, Project } from "../../protocol/model.ts";
import type { ImportedImage } from "../isf/header.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { Refusal } from "../errors.ts";
import { AsyncLocalStorage } from "node:async_hooks";

/** The working copy of one edit or batch. */
export interface EditDraft {
  project: Project;
  /** User presets (built-ins are read-only and not here). */
  presets: Preset[];
  readonly builtInPresets: readonly Preset[];
  /** Ids created by the current edit, by field name. */
  created: Record<string, string>;
  /** A result value beyond the message (for `preset.validate`). */
  result?: unknown;
  /**
   * Gives the next imported file of the batch its name in `media/` (it was
   * copied before the batch began: `import_jobs.ts`); returns its entry.
   */
  importFile(path: string, name: string | undefined): Promise<MediaFile>;
  /** The cameras' device ids, to check a binding (absent: not checked). */
  readonly cameras?: readonly string[];
  /** Stores a preset's `IMPORTED` image (`imported_images.ts`; absent: images are not kept). */
  storeImage?(image: ImportedImage, bytes: Uint8Array, field: string): Promise<PresetImage>;
}

/** Parameters after validation by the edit's schema. */
// deno-lint-ignore no-explicit-any
export type EditParams = Record<string, any>;

/** Applies one edit to the draft; returns what it did, in a sentence. */
export type EditHandler = (draft: EditDraft, params: EditParams) => string | Promise<string>;

/** A reference to something missing (404). */
export function missing(message: string): Refusal {
  return new Refusal(message, RpcErrorCode.NOT_FOUND);
}

/**
 * Makes ids (`prefix-<8 hex>`): at random, or, given a seed, drawn in order
 * from it, so the same log entry of a rig group makes the same ids on every
 * rig (seed: its etcd revision).
 */
export class IdMaker {
  readonly #seed: string | undefined;
  #count = 0;

  /** A maker drawing from `seed`; at random without one. */
  constructor(seed?: string) {
    this.#seed = seed;
  }

  /** A new id with `prefix`, unused in `taken`. */
  next(prefix: string, taken: (id: string) => boolean): string {
    for (;;) {
      const part = this.#seed === undefined
        ? crypto.randomUUID()
        : seededHex(`${this.#seed}:${this.#count++}`);
      const id = `${prefix}-${part.slice(0, 8)}`;
      if (!taken(id)) return id;
    }
  }
}

const RANDOM_IDS = new IdMaker();
/** The id maker of the batch `withIdSeed` runs: bound to its async calls only, not to work beside it. */
const batchIds = new AsyncLocalStorage<IdMaker>();

/**
 * Runs `apply` with the ids it makes (`newId`) drawn from `seed` instead of
 * at random: a batch of a rig group's log (seed: its etcd revision) makes
 * the same ids on every rig. The seed holds in `apply`'s own async calls
 * only: an import copying beside it (`import_jobs.ts`, given its own
 * `IdMaker`) does not draw from it. Without a seed, `apply` as is.
 */
export async function withIdSeed<T>(seed: string | undefined, apply: () => Promise<T>): Promise<T> {
  if (seed === undefined) return await apply();
  return await batchIds.run(new IdMaker(seed), apply);
}

/** A new id with `prefix`, unused in `taken`: random, or the next of the seed (`withIdSeed`). */
export function newId(prefix: string, taken: (id: string) => boolean): string {
  return (batchIds.getStore() ?? RANDOM_IDS).next(prefix, taken);
}

/** Eight hex digits of `text`'s FNV-1a hash: the same on every machine. */
function seededHex(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** Where an item goes, for the message of a position past the end. */
export interface Place {
  /** The list's owner: `Song "song-1"`, `the Project`. */
  owner: string;
  /** What the list holds, singular and plural: `["Clip", "Clips"]`. */
  noun: readonly [string, string];
  /** The item is already in the list as the user sees it (a move): it was taken out first. */
  isMove?: boolean;
}

/**
 * Inserts `item` at `position` (end when undefined); refuses a position past
 * the end with the counts the user sees (a moved item still counts).
 */
export function insertAt<T>(list: T[], item: T, position: number | undefined, place: Place): void {
  if (position === undefined) {
    list.push(item);
    return;
  }
  if (position > list.length) {
    const count = list.length + (place.isMove ? 1 : 0);
    const [one, many] = place.noun;
    throw new Refusal(
      `Position ${position} is past the end: ${place.owner} has ${count} ${
        count === 1 ? one : many
      }, so the last position is ${list.length}`,
    );
  }
  list.splice(position, 0, item);
}

/** The Clip with `id`, or a 404 refusal. */
export function findClip(draft: EditDraft, id: string): Project["clips"][number] {
  const clip = draft.project.clips.find((c) => c.id === id);
  if (!clip) throw missing(`Clip "${id}" does not exist`);
  return clip;
}

/** The Song with `id`, or a 404 refusal. */
export function findSong(draft: EditDraft, id: string): Project["songs"][number] {
  const song = draft.project.songs.find((s) => s.id === id);
  if (!song) throw missing(`Song "${id}" does not exist`);
  return song;
}

/** The media file with `id`, or a 404 refusal. */
export function findFile(draft: EditDraft, id: string): MediaFile {
  const file = draft.project.files.find((f) => f.id === id);
  if (!file) throw missing(`File "${id}" does not exist`);
  return file;
}

/** True when `id` names a Clip, Song, file, Effect, Visualizer or cue of the Project. */
export function isTaken(project: Project, id: string): boolean {
  return project.clips.some((c) => c.id === id) || project.songs.some((s) => s.id === id) ||
    project.files.some((f) => f.id === id) || project.effects.some((e) => e.id === id) ||
    project.visualizers.some((v) => v.id === id) ||
    project.songs.some((s) => s.timeline.some((c) => c.id === id));
}

/** The Song holding a Clip, if any. */
export function songOf(draft: EditDraft, clipId: string): Project["songs"][number] | undefined {
  return draft.project.songs.find((s) => s.clips.includes(clipId));
}

/** Drops undefined members (so optional params leave fields alone). */
export function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<
    T
  >;
}

/**
 * Project patches: what one edit (or batch) changed, as items set or
 * removed by id, new orders and replaced top-level fields. The player
 * computes a patch pair (forward, backward) by diffing the documents before
 * and after; undo applies the backward patch, redo the forward one, and the
 * server's read model applies the forward patch it receives in the
 * `project-edited` update. One function applies patches everywhere.
 * @module
 */
import type { Clip, Preset, Project, Song } from "./model.ts";
import { TIMECODE_DEFAULTS } from "./timecode.ts";

/** Top-level Project fields a patch may replace whole. */
export const PATCH_FIELDS = [
  "name",
  "files",
  "effects",
  "visualizers",
  "backgroundClips",
  "controls",
  "display",
  "timecode",
  "midi",
  "transition",
] as const;

/** One of the fields a patch may replace. */
export type PatchField = typeof PATCH_FIELDS[number];

/** A change to a Project (and to the user preset store). */
export interface ProjectPatch {
  /** Clips set (added or replaced) or removed (null), by id. */
  clips?: Record<string, Clip | null>;
  /** Songs set or removed (null), by id. */
  songs?: Record<string, Song | null>;
  /** The Clip ids of the Project in order, when the set or order changed. */
  clipOrder?: string[];
  /** The Song ids in order, when the set or order changed. */
  songOrder?: string[];
  /** Replaced top-level fields. */
  fields?: Partial<Pick<Project, PatchField>>;
  /** User presets set or removed (null), by id. */
  presets?: Record<string, Preset | null>;
  /** The user preset ids in order, when the set or order changed. */
  presetOrder?: string[];
}

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

function diffItems<T extends { id: string }>(
  before: readonly T[],
  after: readonly T[],
): { set: Record<string, T | null>; order: string[] | undefined; isChanged: boolean } {
  const old = new Map(before.map((x) => [x.id, x]));
  const now = new Map(after.map((x) => [x.id, x]));
  const set: Record<string, T | null> = {};
  let isChanged = false;
  for (const [id, item] of now) {
    const was = old.get(id);
    if (!was || !same(was, item)) {
      set[id] = item;
      isChanged = true;
    }
  }
  for (const id of old.keys()) {
    if (!now.has(id)) {
      set[id] = null;
      isChanged = true;
    }
  }
  const isReordered = before.length !== after.length ||
    before.some((x, i) => x.id !== after[i]!.id);
  return { set, order: isReordered ? after.map((x) => x.id) : undefined, isChanged };
}

/** The patch that turns `before` into `after` (null when nothing changed). */
export function diffProject(
  before: { project: Project; presets: readonly Preset[] },
  after: { project: Project; presets: readonly Preset[] },
): ProjectPatch | null {
  const patch: ProjectPatch = {};
  const clips = diffItems(before.project.clips, after.project.clips);
  if (clips.isChanged) patch.clips = clips.set;
  if (clips.order) patch.clipOrder = clips.order;
  const songs = diffItems(before.project.songs, after.project.songs);
  if (songs.isChanged) patch.songs = songs.set;
  if (songs.order) patch.songOrder = songs.order;
  const fields: Record<string, unknown> = {};
  for (const field of PATCH_FIELDS) {
    if (same(before.project[field], after.project[field])) continue;
    // A field gone absent goes as its defaults (the same meaning): JSON carries no undefined.
    fields[field] = after.project[field] ??
      (field === "timecode" ? TIMECODE_DEFAULTS : field === "transition" ? null : undefined);
  }
  if (Object.keys(fields).length > 0) patch.fields = fields as NonNullable<ProjectPatch["fields"]>;
  const presets = diffItems(before.presets, after.presets);
  if (presets.isChanged) patch.presets = presets.set;
  if (presets.order) patch.presetOrder = presets.order;
  return Object.keys(patch).length === 0 ? null : patch;
}

function applyItems<T extends { id: string }>(
  items: readonly T[],
  set: Record<string, T | null> | undefined,
  order: string[] | undefined,
): T[] {
  if (!set && !order) return [...items];
  const byId = new Map(items.map((x) => [x.id, x]));
  const added: string[] = [];
  for (const [id, item] of Object.entries(set ?? {})) {
    if (item === null) byId.delete(id);
    else {
      if (!byId.has(id)) added.push(id);
      byId.set(id, item);
    }
  }
  const ids = order ?? [...items.map((x) => x.id), ...added];
  return ids.map((id) => byId.get(id)).filter((x): x is T => x !== undefined);
}

/** `project` with `patch` applied (a new object; the input is not changed). */
export function applyPatch(project: Project, patch: ProjectPatch): Project {
  return {
    ...project,
    ...patch.fields,
    clips: applyItems(project.clips, patch.clips, patch.clipOrder),
    songs: applyItems(project.songs, patch.songs, patch.songOrder),
  };
}

/** The user presets with the patch's preset changes applied. */
export function applyPresetPatch(presets: readonly Preset[], patch: ProjectPatch): Preset[] {
  return applyItems(presets, patch.presets, patch.presetOrder);
}

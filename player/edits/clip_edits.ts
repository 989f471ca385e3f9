/** Handlers of the Clip edits. @module */
import { Clip } from "../../protocol/model.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { Refusal } from "../errors.ts";
import { checkedTransition } from "./transition_edits.ts";
import { checkedGenerator } from "./generator_edits.ts";
import {
  defined,
  type EditDraft,
  type EditHandler,
  findClip,
  findFile,
  findSong,
  insertAt,
  isTaken,
  missing,
  newId,
  songOf,
} from "./draft.ts";

/** Removes a Clip and every reference to it (Songs, cues, Backgrounds, Control Targets). */
export function deleteClip(draft: EditDraft, clipId: string): void {
  const p = draft.project;
  p.clips = p.clips.filter((c) => c.id !== clipId);
  for (const song of p.songs) {
    song.clips = song.clips.filter((id) => id !== clipId);
    song.timeline = song.timeline.filter((cue) => cue.clipID !== clipId);
    if (song.backgroundClipID === clipId) song.backgroundClipID = null;
  }
  p.backgroundClips = p.backgroundClips.filter((id) => id !== clipId);
  for (const control of p.controls) {
    control.targets = control.targets.filter((t) => !t.target.startsWith(`clip:${clipId}/`));
  }
}

function baseName(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

const SETTINGS = [
  "launchMode",
  "retrigger",
  "direction",
  "loop",
  "velocitySensitivity",
] as const;

function pick(params: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return defined(Object.fromEntries(keys.map((k) => [k, params[k]])));
}

/** Clip edit handlers by name. */

const CLIPS = ["Clip", "Clips"] as const;
export const CLIP_HANDLERS: Record<string, EditHandler> = {
  "clip.add": (d, p) => {
    const song = findSong(d, p.songID);
    const file = p.fileId ? findFile(d, p.fileId) : null;
    if (file && p.generator) {
      throw new Refusal(
        "Invalid generator: a Clip plays a file or a generator; give fileId or generator, not both",
        RpcErrorCode.INVALID_PARAMS,
        { field: "generator" },
      );
    }
    const made = p.generator ? checkedGenerator(p.generator, "generator", d) : null;
    const id = newId("clip", (x) => isTaken(d.project, x));
    const clip = Clip.parse({
      id,
      name: p.name ?? (file ? baseName(file.name) : made?.preset.name ?? "New Clip"),
      fileId: file?.id ?? null,
      ...(made ? { generator: made.generator } : {}),
      duration: p.duration ?? file?.duration ?? 5,
      ...pick(p, SETTINGS),
    });
    insertAt(song.clips, id, p.position, { owner: `Song "${song.id}"`, noun: CLIPS });
    d.project.clips.push(clip);
    d.created.clipID = id;
    return `Clip "${id}" added to Song "${song.id}" at position ${song.clips.indexOf(id)}`;
  },
  "clip.move": (d, p) => {
    findClip(d, p.clipID);
    const from = songOf(d, p.clipID);
    const to = p.songID ? findSong(d, p.songID) : from;
    if (!to) throw new Refusal(`Clip "${p.clipID}" is in no Song: give songID`);
    if (from) from.clips = from.clips.filter((id) => id !== p.clipID);
    insertAt(to.clips, p.clipID, p.position, {
      owner: `Song "${to.id}"`,
      noun: CLIPS,
      isMove: from === to,
    });
    return `Clip "${p.clipID}" moved to position ${p.position} of Song "${to.id}"`;
  },
  "clip.duplicate": (d, p) => {
    const clip = findClip(d, p.clipID);
    const id = newId("clip", (x) => isTaken(d.project, x));
    const copy = { ...structuredClone(clip), id, name: p.name ?? `${clip.name} copy` };
    d.project.clips.splice(d.project.clips.indexOf(clip) + 1, 0, copy);
    const song = songOf(d, clip.id);
    if (song) song.clips.splice(song.clips.indexOf(clip.id) + 1, 0, id);
    d.created.clipID = id;
    return `Clip "${clip.id}" duplicated as "${id}"`;
  },
  "clip.delete": (d, p) => {
    findClip(d, p.clipID);
    deleteClip(d, p.clipID);
    return `Clip "${p.clipID}" deleted`;
  },
  "clip.update": (d, p) => {
    const clip = findClip(d, p.clipID);
    if (p.fileId) findFile(d, p.fileId);
    for (const id of p.options?.effects ?? []) {
      if (!d.project.effects.some((e) => e.id === id)) {
        throw missing(`Effect "${id}" does not exist`);
      }
    }
    if (p.options?.transition !== undefined) {
      p.options.transition = checkedTransition(
        p.options.transition,
        "options.transition",
        d.presets,
      );
    }
    const { filters, ...options } = p.options ?? {};
    Object.assign(clip, pick(p, ["name", "fileId", "duration", ...SETTINGS]));
    if (p.fileId) delete clip.generator; // a file replaces the generator
    Object.assign(clip.options, defined(options));
    Object.assign(clip.options.filters, defined(filters ?? {}));
    const fields = Object.keys(p).filter((k) => k !== "clipID");
    return `Clip "${clip.id}" updated: ${fields.join(", ") || "nothing"}`;
  },
};

/** Handlers of the Song edits. @module */
import { type Cue, Song } from "../../protocol/model.ts";
import { Refusal } from "../errors.ts";
import { deleteClip } from "./clip_edits.ts";
import { checkedTransition } from "./transition_edits.ts";
import {
  type EditDraft,
  type EditHandler,
  findClip,
  findFile,
  findSong,
  insertAt,
  isTaken,
  newId,
} from "./draft.ts";

function requireAudio(d: EditDraft, fileId: string): void {
  const file = findFile(d, fileId);
  if (file.kind !== "audio" && file.kind !== "video") {
    throw new Refusal(
      `File "${fileId}" is ${
        file.kind === "image" ? "an image" : file.kind
      }: a Song's audio must be an audio or video file`,
    );
  }
}

const byTime = <T extends { time: number }>(list: T[]) => list.sort((a, b) => a.time - b.time);

/** Song edit handlers by name. */

const SONGS = ["Song", "Songs"] as const;
export const SONG_HANDLERS: Record<string, EditHandler> = {
  "song.add": (d, p) => {
    if (p.audioFileId) requireAudio(d, p.audioFileId);
    const id = newId("song", (x) => isTaken(d.project, x));
    const song = Song.parse({
      id,
      title: p.title,
      pgmId: p.pgmId ?? null,
      audioFileId: p.audioFileId ?? null,
    });
    insertAt(d.project.songs, song, p.position, { owner: "the Project", noun: SONGS });
    d.created.songID = id;
    return `Song "${id}" added at position ${d.project.songs.indexOf(song)}`;
  },
  "song.move": (d, p) => {
    const song = findSong(d, p.songID);
    d.project.songs = d.project.songs.filter((s) => s !== song);
    insertAt(d.project.songs, song, p.position, {
      owner: "the Project",
      noun: SONGS,
      isMove: true,
    });
    return `Song "${song.id}" moved to position ${p.position}`;
  },
  "song.duplicate": (d, p) => {
    const song = findSong(d, p.songID);
    const id = newId("song", (x) => isTaken(d.project, x));
    const clipIds = new Map<string, string>();
    for (const clipId of song.clips) {
      const clip = findClip(d, clipId);
      const copyId = newId(
        "clip",
        (x) => isTaken(d.project, x) || [...clipIds.values()].includes(x),
      );
      clipIds.set(clipId, copyId);
      d.project.clips.push({ ...structuredClone(clip), id: copyId });
    }
    const timeline: Cue[] = song.timeline.map((cue) => ({
      ...cue,
      id: newId("cue", (x) => isTaken(d.project, x)),
      clipID: clipIds.get(cue.clipID) ?? cue.clipID,
    }));
    const copy: Song = {
      ...structuredClone(song),
      id,
      title: p.title ?? `${song.title} copy`,
      clips: song.clips.map((c) => clipIds.get(c)!),
      timeline,
      backgroundClipID: song.backgroundClipID
        ? clipIds.get(song.backgroundClipID) ?? song.backgroundClipID
        : null,
    };
    d.project.songs.splice(d.project.songs.indexOf(song) + 1, 0, copy);
    d.created.songID = id;
    return `Song "${song.id}" duplicated as "${id}" with ${clipIds.size} Clip(s)`;
  },
  "song.delete": (d, p) => {
    const song = findSong(d, p.songID);
    d.project.songs = d.project.songs.filter((s) => s !== song);
    if (!p.keepClips) { for (const clipId of song.clips) deleteClip(d, clipId); }
    const kept = p.keepClips ? `, ${song.clips.length} Clip(s) kept` : "";
    return `Song "${song.id}" deleted${kept}`;
  },
  "song.update": (d, p) => {
    const song = findSong(d, p.songID);
    if (p.audioFileId) requireAudio(d, p.audioFileId);
    if (p.backgroundClipID) findClip(d, p.backgroundClipID);
    if (p.title !== undefined) song.title = p.title;
    if (p.pgmId !== undefined) song.pgmId = p.pgmId;
    if (p.audioFileId !== undefined) song.audioFileId = p.audioFileId;
    if (p.audioVolume !== undefined) song.audio.volume = p.audioVolume;
    if (p.backgroundClipID !== undefined) song.backgroundClipID = p.backgroundClipID;
    if (p.transition !== undefined) {
      song.transition = checkedTransition(p.transition, "transition", d.presets);
    }
    const fields = Object.keys(p).filter((k) => k !== "songID");
    return `Song "${song.id}" updated: ${fields.join(", ") || "nothing"}`;
  },
  "song.set_timeline": (d, p) => {
    const song = findSong(d, p.songID);
    const ids = new Set<string>();
    const cues: Cue[] = [];
    for (const cue of p.cues as Array<Omit<Cue, "id"> & { id?: string }>) {
      findClip(d, cue.clipID);
      const id = cue.id ?? newId("cue", (x) => isTaken(d.project, x) || ids.has(x));
      if (ids.has(id)) throw new Refusal(`Cue id "${id}" appears twice`);
      ids.add(id);
      cues.push({ ...cue, id });
    }
    song.timeline = byTime(cues);
    return `Timeline of Song "${song.id}" set: ${cues.length} cue(s)`;
  },
  "song.set_lyrics": (d, p) => {
    const song = findSong(d, p.songID);
    song.lyrics = byTime([...p.lyrics]);
    return `Lyrics of Song "${song.id}" set: ${song.lyrics.length} line(s)`;
  },
};

/** Handlers of the timecode edits (`protocol/edits/timecode.ts`). @module */
import {
  type FrameRate,
  ProjectTimecode,
  SongTimecode,
  timecodeToSeconds,
} from "../../protocol/timecode.ts";
import { Refusal } from "../errors.ts";
import { defined, type EditDraft, type EditHandler, findSong } from "./draft.ts";

/**
 * Every offset of the Project must name a frame that exists at the Project's rate;
 * `field` names the edit's field an offset of `songId` (null: the Project's) broke.
 */
function checkOffsets(d: EditDraft, field: (songId: string | null) => string): void {
  const rate: FrameRate = d.project.timecode?.frameRate ?? 25;
  const offsets = [
    { songId: null, offset: d.project.timecode?.offset ?? null },
    ...d.project.songs.map((s) => ({ songId: s.id, offset: s.timecode?.offset ?? null })),
  ];
  for (const { songId, offset } of offsets) {
    if (offset === null) continue;
    try {
      timecodeToSeconds(offset, rate);
    } catch (error) {
      const whose = songId === null ? "" : `Song "${songId}"'s offset `;
      throw new Refusal(`Invalid ${field(songId)}: ${whose}${(error as Error).message}`);
    }
  }
}

/** Timecode edit handlers by name. */
export const TIMECODE_HANDLERS: Record<string, EditHandler> = {
  "project.set_timecode": (d, p) => {
    const change = defined(p);
    d.project.timecode = ProjectTimecode.parse({ ...d.project.timecode, ...change });
    checkOffsets(d, (songId) => songId === null ? "offset" : "frameRate");
    return `Timecode set: ${Object.keys(change).join(", ") || "nothing"}`;
  },
  "song.set_timecode": (d, p) => {
    const song = findSong(d, p.songID);
    const { songID: _id, ...change } = defined(p);
    song.timecode = SongTimecode.parse({ ...song.timecode, ...change });
    checkOffsets(d, () => "offset");
    return `Song "${song.id}" timecode set: ${Object.keys(change).join(", ") || "nothing"}`;
  },
};

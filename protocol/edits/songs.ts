/** Song edits: add, move, duplicate, delete, update, timeline, lyrics. @module */
import { z } from "zod";
import { CueAction, Id } from "../model.ts";
import {
  ClipRef,
  edit,
  type EditSpec,
  FileRef,
  Name,
  Position,
  SongRef,
  TransitionInput,
} from "./_common.ts";

const Seconds = z.number().min(0).max(86_400).describe("Seconds from the start of the Song");

/** The Song edits. */
export const SONG_EDITS: EditSpec[] = [
  edit("song.add", "songs", "Add a Song", {
    title: Name,
    position: Position.optional(),
    pgmId: z.string().trim().min(1).max(32).optional()
      .describe("Program Identifier (for example a MIDI program number)"),
    audioFileId: FileRef.optional().describe("Audio file of the Song"),
  }),
  edit("song.move", "songs", "Move a Song to another position", {
    songID: SongRef,
    position: Position.describe("Zero-based position among the Songs"),
  }),
  edit("song.duplicate", "songs", "Copy a Song with copies of its Clips, timeline and lyrics", {
    songID: SongRef,
    title: Name.optional().describe('Defaults to the title with " copy"'),
  }),
  edit("song.delete", "songs", "Delete a Song and its Clips", {
    songID: SongRef,
    keepClips: z.boolean().default(false)
      .describe("Keep its Clips in the Project (without a Song) instead of deleting them"),
  }),
  edit(
    "song.update",
    "songs",
    "Change a Song's title, Program Identifier, audio, Background or transition",
    {
      songID: SongRef,
      title: Name.optional(),
      pgmId: z.string().trim().min(1).max(32).nullable().optional()
        .describe("Program Identifier; null clears it"),
      audioFileId: FileRef.nullable().optional().describe("Audio file; null removes the audio"),
      audioVolume: z.number().min(0).max(1).optional().describe("Audio level, 0.0 to 1.0"),
      backgroundClipID: ClipRef.nullable().optional()
        .describe("Background Clip of this Song; null uses the Project's default"),
      transition: TransitionInput.optional().describe(
        "How the show crosses into this Song, between its Clips and at STOP_ALL_CLIPS_IN in it; null: the Project's",
      ),
    },
  ),
  edit("song.set_timeline", "songs", "Replace a Song's timeline of cues", {
    songID: SongRef,
    cues: z.array(z.strictObject({
      id: Id.optional().describe("Kept when given; generated otherwise"),
      time: Seconds,
      action: CueAction,
      clipID: ClipRef,
    })).max(10_000).describe("Cues in any order; stored sorted by time"),
  }),
  edit("song.set_lyrics", "songs", "Replace a Song's timed lyrics", {
    songID: SongRef,
    lyrics: z.array(z.strictObject({ time: Seconds, text: z.string().max(1000) })).max(10_000)
      .describe("Lines in any order; stored sorted by time"),
  }),
];

/**
 * Timecode edits: the Project's chase settings and a Song's own offset and
 * chase switch (`protocol/timecode.ts`, docs/midi.md "Timecode").
 * @module
 */
import { z } from "zod";
import { FrameRateSchema, TimecodeString } from "../timecode.ts";
import { edit, type EditSpec, SongRef } from "./_common.ts";

/** The Project's timecode edit (catalog order: after the other Project edits). */
export const PROJECT_TIMECODE_EDITS: EditSpec[] = [
  edit("project.set_timecode", "project", "Set how the active Song chases timecode", {
    chase: z.boolean().optional()
      .describe("Whether the active Song follows incoming timecode (a Song may say otherwise)"),
    frameRate: FrameRateSchema.optional(),
    offset: TimecodeString.optional()
      .describe('Timecode of a Song\'s start, "hh:mm:ss:ff", unless the Song has its own'),
    freewheel: z.number().min(0).max(10).optional()
      .describe("Seconds a Song plays on when the code drops out, before it pauses; 0 to 10"),
  }),
];

/** The Song's timecode edit (catalog order: after the other Song edits). */
export const SONG_TIMECODE_EDITS: EditSpec[] = [
  edit("song.set_timecode", "songs", "Set a Song's own timecode offset and chase switch", {
    songID: SongRef,
    chase: z.boolean().nullable().optional()
      .describe("Whether this Song chases timecode; null takes the Project's setting"),
    offset: TimecodeString.nullable().optional()
      .describe("Timecode of this Song's start, \"hh:mm:ss:ff\"; null takes the Project's"),
  }),
];

/** Clip edits: add, move, duplicate, delete, update. @module */
import { z } from "zod";
import { Direction, Id, LaunchMode, Retrigger } from "../model.ts";
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
import { GeneratorInput } from "./generators.ts";

const FiltersUpdate = z.strictObject({
  brightness: z.number().min(-1).max(1).optional().describe("-1 to 1; 0 is neutral"),
  contrast: z.number().min(0).max(4).optional().describe("0 to 4; 1 is neutral"),
  saturation: z.number().min(0).max(4).optional().describe("0 to 4; 1 is neutral"),
  hue: z.number().min(-180).max(180).optional().describe("Degrees, -180 to 180; 0 is neutral"),
  blur: z.number().min(0).max(100).optional().describe("Pixels, 0 to 100; 0 is neutral"),
}).describe("Image filters to change; others keep their values");

const OptionsUpdate = z.strictObject({
  opacity: z.number().min(0).max(1).optional().describe("0.0 to 1.0"),
  volume: z.number().min(0).max(1).optional().describe("0.0 to 1.0"),
  speed: z.number().min(0.05).max(8).optional().describe("Playback rate, 0.05 to 8"),
  filters: FiltersUpdate.optional(),
  effects: z.array(Id).max(32).optional().describe(
    "Effect ids of the Project applied to the Clip, in order (replaces the list)",
  ),
  transition: TransitionInput.optional().describe(
    "How the Clip enters when it replaces another (NEXT_CLIP_IN, PREV_CLIP_IN); null: its Song's",
  ),
}).describe("Options to change; others keep their values");

const Settings = {
  launchMode: LaunchMode.optional().describe("How the Clip responds to triggers"),
  retrigger: Retrigger.optional().describe("What a trigger does to a Clip already playing"),
  direction: Direction.optional(),
  loop: z.boolean().optional(),
  velocitySensitivity: z.number().min(0).max(1).optional()
    .describe("0 ignores trigger velocity; 1 scales the level fully by it"),
};

/** The Clip edits. */
export const CLIP_EDITS: EditSpec[] = [
  edit(
    "clip.add",
    "clips",
    "Add a Clip to a Song, from a media file, a generator or as a placeholder",
    {
      songID: SongRef.describe("Song the Clip joins"),
      position: Position.optional(),
      fileId: FileRef.optional().describe(
        "Media file it plays; omitted (and no generator) makes a placeholder",
      ),
      generator: GeneratorInput.optional().describe(
        "A generator preset it plays instead of a file (clip.set_generator)",
      ),
      name: Name.optional().describe("Defaults to the file's or the generator preset's name"),
      duration: z.number().positive().max(86_400).optional()
        .describe("Seconds; defaults to the media's duration (5 for stills and placeholders)"),
      ...Settings,
    },
  ),
  edit("clip.move", "clips", "Move a Clip within its Song or to another Song", {
    clipID: ClipRef,
    songID: SongRef.optional().describe("Destination Song; omitted keeps the Clip's Song"),
    position: Position.describe("Zero-based position in the destination Song"),
  }),
  edit("clip.duplicate", "clips", "Copy a Clip (with its options) right after it", {
    clipID: ClipRef,
    name: Name.optional().describe('Defaults to the name with " copy"'),
  }),
  edit("clip.delete", "clips", "Delete a Clip; cues and Background references to it go too", {
    clipID: ClipRef,
  }),
  edit("clip.update", "clips", "Change a Clip's name, media, settings and options", {
    clipID: ClipRef,
    name: Name.optional(),
    fileId: FileRef.optional().describe("Media file it plays"),
    duration: z.number().positive().max(86_400).optional().describe("Seconds"),
    ...Settings,
    options: OptionsUpdate.optional(),
  }),
];

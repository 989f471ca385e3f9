/** Project edits: undo, redo, name, display options, Background Clips, zoom. @module */
import { z } from "zod";
import { ClipRef, edit, type EditSpec, Name } from "./_common.ts";

/** The Project edits. */
export const PROJECT_EDITS: EditSpec[] = [
  edit("project.undo", "project", "Undo the last edit (a batch is one step)", {}, {
    isHistoryControl: true,
  }),
  edit("project.redo", "project", "Redo the last undone edit", {}, { isHistoryControl: true }),
  edit("project.rename", "project", "Rename the Project", { name: Name }),
  edit("project.set_display", "project", "Change the output display options", {
    width: z.number().int().min(16).max(16_384).optional().describe("Output width, pixels"),
    height: z.number().int().min(16).max(16_384).optional().describe("Output height, pixels"),
    fps: z.number().min(1).max(240).optional().describe("Frames per second"),
    backgroundColor: z.string().regex(/^#[0-9A-Fa-f]{6}$/, "Must be a color like #000000")
      .optional().describe("Color behind everything, #RRGGBB"),
  }),
  edit("project.set_zoom", "project", "Set the editor's timeline zoom", {
    zoom: z.number().min(0.1).max(10).describe("Zoom factor, 0.1 to 10; 1 is 100%"),
  }),
  edit(
    "project.set_background_clips",
    "project",
    "Set the Background Clips (the first is the default)",
    {
      clipIDs: z.array(ClipRef).max(64).describe("Clip ids in order; [] clears them"),
    },
  ),
];

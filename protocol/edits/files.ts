/** File edits: importing media into a Project. @module */
import { z } from "zod";
import { edit, type EditSpec, Name } from "./_common.ts";

/** The file edits. */
export const FILE_EDITS: EditSpec[] = [
  edit("file.import", "files", "Import a media file from a path on the show machine", {
    path: z.string().min(1).max(4096).describe("Absolute path of the file on the show machine"),
    name: Name.optional().describe("Name in the Project; defaults to the file's name"),
  }, { isLocalOnly: true }),
];

/**
 * Project edits: undo, redo, name, display options, Background Clips, zoom; and the
 * lifecycle of Projects (create, duplicate, delete, restore, open, close), each alone in its
 * batch and recorded in no history.
 * @module
 */
import { z } from "zod";
import { Id } from "../model.ts";
import { MidiBinding, MidiMap } from "../midi.ts";
import { ClipRef, edit, type EditSpec, Name, TransitionInput } from "./_common.ts";

const ProjectRef = Id.describe("Id of a Project of the library (GET /api/v1/projects?all=true)");

/** The lifecycle edits (`player/library/`): declared once, below. */
const LIFECYCLE_SPECS = lifecycleEdits();

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
  edit("project.set_midi", "project", "Change the Project's MIDI map (docs/midi.md)", {
    useDefault: MidiMap.shape.useDefault.removeDefault().optional(),
    channel: MidiMap.shape.channel.removeDefault().optional(),
    programBase: MidiMap.shape.programBase.removeDefault().optional(),
    feedback: MidiMap.shape.feedback.removeDefault().optional(),
    bindings: z.array(MidiBinding).max(512).optional()
      .describe("Every binding, replacing the list; [] clears it"),
  }),
  edit(
    "project.set_transition",
    "project",
    "Set the Project's default transition (Clip replacements, Song changes, STOP_ALL_CLIPS_IN)",
    {
      transition: TransitionInput.describe(
        "The transition a crossing goes through when neither its Clip nor its Song sets one; null: a cut",
      ),
    },
  ),
  ...LIFECYCLE_SPECS,
];

function lifecycleEdits(): EditSpec[] {
  return [
    edit("project.create", "project", "Create a Project (empty, or from the demo)", {
      name: Name.describe("Name of the new Project"),
      template: z.enum(["empty", "demo"]).default("empty")
        .describe("empty: no Songs or Clips, the 26 Controls; demo: the demo show with its media"),
      projectID: Id.optional().describe(
        "Id wanted for it; omitted: made from the name (-2, -3 ... when taken)",
      ),
    }),
    edit("project.duplicate", "project", "Copy the batch's Project under a new id", {
      name: Name.optional().describe('Name of the copy; omitted: "<name> (copy)"'),
    }),
    edit(
      "project.delete",
      "project",
      "Move the batch's Project (named in projectID) to the trash",
      {
        force: z.boolean().default(false).describe(
          "Stop what of it plays first, instead of refusing",
        ),
      },
    ),
    edit("project.restore", "project", "Bring the newest deleted Project of an id back, open", {
      projectID: ProjectRef,
    }),
    edit("project.close", "project", "Close the batch's Project (named in projectID)", {}),
    edit("project.open", "project", "Open a closed Project", { projectID: ProjectRef }),
  ];
}

/** The lifecycle edits: each runs alone in its batch, outside every Project's history. */
export const LIFECYCLE_EDITS: ReadonlySet<string> = new Set(LIFECYCLE_SPECS.map((e) => e.name));

/**
 * What to send to reach a Project of the library that is not open, or null when it is open or
 * unknown: shared by the service's early check and the player's.
 */
export function notOpenHint(id: string, state: string | undefined): string | null {
  if (state === "deleted") {
    return `Project "${id}" is deleted: send project.restore {"projectID": "${id}"} to bring it back`;
  }
  if (state === "closed") {
    return `Project "${id}" is closed: send project.open {"projectID": "${id}"} to open it`;
  }
  if (state === "damaged") {
    return `Project "${id}" is damaged and was not loaded: GET /api/v1/projects?all=true says why`;
  }
  return null;
}

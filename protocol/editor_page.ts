/**
 * The editor window's wire shapes (`docs/presets.md`, "The editor window"):
 * what the player sends the preset editor page it opens in the output's
 * browser (the preset as it is now, the preview's programs and render state,
 * the answer to each edit) and what the page sends (its edits, which the
 * player runs as ordinary `preset.update` and `project.undo`/`redo` edits).
 * @module
 */
import { z } from "zod";
import { Preset } from "./model.ts";
import { EditorPageStats, type ToPage } from "./output.ts";
import { MAX_PRESET_CODE } from "./edits/presets.ts";
import type { SocketBounds } from "./socket_bounds.ts";

/** Page to player (text frames). */
export const FromEditor = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello"), gl: z.string() }),
  z.object({ type: z.literal("ping"), t0: z.number() }),
  /**
   * The code as typed, to write as the preset's code; `base`: the preset's code the page
   * showed last (a change it had not seen yet refuses the edit). `vertexCode` and
   * `vertexBase` the same for its vertex shader (`""`: none), when the page sends it.
   */
  z.object({
    type: z.literal("edit"),
    id: z.number().int(),
    code: z.string(),
    base: z.string(),
    vertexCode: z.string().optional(),
    vertexBase: z.string().optional(),
  }),
  /** A control moved: the parameter's default (for isf, the header's DEFAULT). */
  z.object({
    type: z.literal("param"),
    id: z.number().int(),
    name: z.string(),
    value: z.union([z.number(), z.string(), z.boolean()]),
  }),
  z.object({
    type: z.literal("history"),
    id: z.number().int(),
    direction: z.enum(["undo", "redo"]),
  }),
  /** The page shows the editor opened at `openedAt` (the answer to its `editor`). */
  z.object({ type: z.literal("shown"), openedAt: z.string() }),
  /** The preview's GL refused a program (code no output page checked). */
  z.object({ type: z.literal("compile-error"), program: z.string(), log: z.string() }),
  /** Every second: the page's live GL objects and the programs its GL refused so far. */
  z.object({ type: z.literal("report"), ...EditorPageStats.shape }),
]);
/** Page to player. */
export type FromEditor = z.infer<typeof FromEditor>;

/**
 * The editor page's socket bounds (`socket_bounds.ts`). The longest message is an `edit`: the
 * code, its `base`, the vertex shader and its base, each at most `MAX_PRESET_CODE` characters,
 * each character at most 6 in JSON (`\u0000`). A person types and drags controls: 100 messages a second (a control dragged
 * at 60 fps, pings), bursts of 300.
 */
export const EDITOR_SOCKET_BOUNDS: SocketBounds = {
  maxTextChars: 4 * 6 * MAX_PRESET_CODE + 4096,
  maxBinaryBytes: 0,
  messagesPerSecond: 100,
  burstMessages: 300,
  bytesPerSecond: 8 * 2 ** 20,
  burstBytes: 2 * (4 * 6 * MAX_PRESET_CODE + 4096),
};

/**
 * The editor page's edits run one at a time, in order; at most this many wait (the one
 * running included). One more is answered refused at once: a flood is refused, not queued.
 */
export const EDITOR_EDITS_WAITING = 4;

/** The close code of an editor page while another has the editor (it says so, and stays). */
export const EDITOR_TAKEN = 4000;
/** The close code of a page whose editor closed (it says so rather than reload). */
export const EDITOR_CLOSED = 4001;

/** A problem of a refused edit, at its line and column in the code (1-based). */
export const EditorProblem = z.object({
  line: z.number().int(),
  column: z.number().int(),
  message: z.string(),
  /** Set when the problem is at a line of the vertex shader (`vertexCode`), not the code. */
  field: z.literal("vertexCode").optional(),
});

/** Player to page, beside the output's `programs`, `state` and `pong`. */
export const EditorMessage = z.discriminatedUnion("type", [
  /** The preset the editor shows, as it is now (each change sends it again). */
  z.object({
    type: z.literal("editor"),
    preset: Preset,
    updatedAt: z.string().nullable(),
    /** When the editor was opened (each `OPEN_EDITOR`): the page answers `shown` with it. */
    openedAt: z.string(),
  }),
  /** The answer to an edit: done (with the Project's revision), or refused and why. */
  z.object({
    type: z.literal("edited"),
    id: z.number().int(),
    ok: z.boolean(),
    message: z.string(),
    revision: z.number().int().optional(),
    problems: z.array(EditorProblem),
  }),
  /** The preview's program was refused by its GL: the message at the user's lines. */
  z.object({ type: z.literal("preview-refused"), message: z.string() }),
]);

/** Player to page. */
export type ToEditor =
  | Extract<ToPage, { type: "programs" | "state" | "pong" }>
  | z.infer<typeof EditorMessage>;

/**
 * The editor window's page, on the player's side: it gets the preset open in
 * the editor as it is now (each change, whoever made it), a preview (the
 * output's render state, smaller and silent, with the preset drawn over the
 * whole picture by the output's own compositor) and the answers to its
 * edits. Its edits are the edit catalog's: the code typed is `preset.update`
 * of the code, a control is `preset.update` of the code with the input's
 * DEFAULT changed (isf) or of the parameters (other types), undo and redo
 * are `project.undo` and `project.redo`; all run through the player's one
 * edit path (`Editor`: validation, history, revision, the same updates).
 *
 * One page at a time: a second page while one is connected is refused at the upgrade (or, when
 * both upgraded at once, closed with `EDITOR_TAKEN`) and the first keeps the editor. Each
 * message is within `EDITOR_SOCKET_BOUNDS` and of the page's schema, or the page is closed
 * (1009, 1008: `socket_guard.ts`); its edits run one at a time, at most `EDITOR_EDITS_WAITING`
 * waiting, the next refused at once. The preview is `editor_preview.ts`'s, the edits
 * `editor_edits.ts`'s.
 * @module
 */
import type { EditApplyParams, EditApplyResult } from "../../protocol/edits/mod.ts";
import {
  EDITOR_CLOSED,
  EDITOR_EDITS_WAITING,
  EDITOR_SOCKET_BOUNDS,
  EDITOR_TAKEN,
  FromEditor,
  type ToEditor,
} from "../../protocol/editor_page.ts";
import type { Preset } from "../../protocol/model.ts";
import type { EditorPageStats, RenderState } from "../../protocol/output.ts";
import type { EditorState } from "../../protocol/state.ts";
import { Refusal } from "../errors.ts";
import { type EditMessage, editOf } from "./editor_edits.ts";
import { previewState } from "./editor_preview.ts";
import type { IsfPrograms } from "./isf_programs.ts";
import { PagePrograms } from "./page_programs.ts";
import { BUILT_IN_PROGRAMS } from "./shaders.ts";
import { OnePageSocket } from "./socket_guard.ts";
import type { SocketFaultLog } from "./socket_log.ts";

/** What the editor page needs of the player. */
export interface EditorHooks {
  /** The editor state now (`appState.editor`). */
  state(): EditorState | null;
  /** The editor's page loaded in its window. */
  shown(): void;
  /** The page that showed the editor is no longer connected (reloading, crashed, closed). */
  hidden?(): void;
  /** The editor's window went away (closed by the user, or with the browser). */
  closed(): void;
  /**
   * Runs the edits `build` makes through the player's edit path, as `edit.apply` does,
   * built in their turn (from the preset as the edits before them left it).
   */
  edit(build: () => EditApplyParams): Promise<EditApplyResult>;
}

/** The connected editor page. */
export class EditorPage {
  readonly #hooks: EditorHooks;
  readonly #programs: PagePrograms;
  readonly #now: () => number;
  readonly #refresh: () => void;
  readonly #socket: OnePageSocket;
  /** The page's edits: the last one's end, and how many wait (the one running included). */
  #edits: Promise<void> = Promise.resolve();
  #waiting = 0;
  /** The preset and time last sent, so that an unchanged one is not sent again. */
  #sent: { preset: Preset; updatedAt: string | null; openedAt: string } | null = null;
  /** The page's figures, as its last report said (kept once it goes: the last known). */
  #stats: EditorPageStats | null = null;

  /**
   * `programs` are the output's (shared: a program is made once); `refresh` asks for a
   * push of the state now (a page connected); `now` is the player's clock (for `pong`),
   * `monotonic` the rate bound's (performance.now); `faults` counts the pages closed.
   */
  constructor(
    options: {
      hooks: EditorHooks;
      programs: IsfPrograms;
      now: () => number;
      refresh: () => void;
      monotonic?: () => number;
      faults?: SocketFaultLog;
    },
  ) {
    this.#hooks = options.hooks;
    this.#programs = new PagePrograms(options.programs);
    this.#now = options.now;
    this.#refresh = options.refresh;
    this.#socket = new OnePageSocket({
      bounds: EDITOR_SOCKET_BOUNDS,
      now: options.monotonic ?? (() => performance.now()),
      faults: options.faults ?? null,
      // The page connected keeps the editor; the newcomer says another window has it.
      taken: {
        code: EDITOR_TAKEN,
        reason: "another editor page has the editor",
        what: "a second editor page's socket, closed",
      },
    });
  }

  /** Whether a page has the editor's socket (connecting or connected): another is refused. */
  get isTaken(): boolean {
    return this.#socket.isTaken;
  }

  /** The editor page's live GL objects and GL refusals, as its last report said (`/health`). */
  get stats(): EditorPageStats | null {
    return this.#stats;
  }

  /** A page connected to the editor's socket: it has the editor, unless another page has. */
  connected(socket: WebSocket): void {
    this.#socket.accept(socket, () => ({
      name: "the editor page's socket",
      opened: () => {
        this.#programs.pageConnected();
        this.#sent = null;
        this.#send({ type: "programs", programs: [...BUILT_IN_PROGRAMS] });
        this.#refresh();
      },
      schema: FromEditor,
      what: "an editor message",
      dispatch: (message) => this.#dispatch(message),
      closed: () => this.#hooks.hidden?.(),
    }));
  }

  /** The show changed: the page gets the preset if it changed and the preview's state. */
  push(state: RenderState | null): void {
    const editor = this.#hooks.state();
    if (!editor) {
      // Connected while it was open: no page of a closed editor stays connected.
      this.#socket.close(EDITOR_CLOSED, "the editor closed");
      return;
    }
    if (!this.#socket.isOpen) return;
    const { preset, updatedAt, openedAt } = editor;
    const sent = this.#sent;
    if (
      sent?.preset !== preset || sent.updatedAt !== updatedAt || sent.openedAt !== openedAt
    ) {
      this.#sent = { preset, updatedAt, openedAt };
      this.#send({ type: "editor", preset, updatedAt, openedAt });
    }
    if (!state) return;
    const preview = previewState(state, preset, this.#programs);
    const { programs, drop } = this.#programs.prepare(preview, state.clock.now);
    if (programs.length > 0 || drop.length > 0) {
      this.#send({ type: "programs", programs, ...(drop.length > 0 ? { drop } : {}) });
    }
    this.#send({ type: "state", state: preview });
  }

  /** Closes the page's socket (the output stops). */
  close(): void {
    this.#socket.close();
  }

  /** Does what a page's message says (within bounds, of its schema). */
  #dispatch(message: FromEditor): void {
    switch (message.type) {
      case "hello":
        this.#hooks.shown();
        break;
      case "shown":
        // An editor opened again while the page stayed (no hello): shown once it shows it.
        if (this.#hooks.state()?.openedAt === message.openedAt) this.#hooks.shown();
        break;
      case "ping":
        this.#send({ type: "pong", t0: message.t0, now: this.#now() });
        break;
      case "report":
        this.#stats = { glObjects: message.glObjects, compileErrors: message.compileErrors };
        break;
      case "compile-error":
        this.#send({
          type: "preview-refused",
          message: this.#programs.refused(message.program, message.log),
        });
        break;
      default:
        this.#queueEdit(message);
    }
  }

  /** The edit runs after those before it; refused at once when too many wait. */
  #queueEdit(message: EditMessage): void {
    if (this.#waiting >= EDITOR_EDITS_WAITING) {
      this.#send({
        type: "edited",
        id: message.id,
        ok: false,
        message:
          `Too many edits wait (${EDITOR_EDITS_WAITING}): wait for their answers, then apply again`,
        problems: [],
      });
      return;
    }
    this.#waiting++;
    this.#edits = this.#edits.then(() => this.#edit(message)).catch(() => {})
      .finally(() => this.#waiting--);
  }

  /** Runs the page's edit and answers it: done, or refused with its problems. */
  async #edit(message: EditMessage) {
    const { id } = message;
    try {
      const result = await this.#hooks.edit(() => ({
        projectId: null,
        edits: [editOf(this.#hooks.state(), message)],
      }));
      const text = result.edits.map((e) => e.message).join("; ");
      this.#send({
        type: "edited",
        id,
        ok: true,
        message: text,
        revision: result.revision,
        problems: [],
      });
    } catch (error) {
      const problems = error instanceof Refusal && Array.isArray(error.data?.problems)
        ? error.data.problems
        : [];
      const text = error instanceof Error ? error.message : String(error);
      this.#send({ type: "edited", id, ok: false, message: text, problems });
    }
  }

  /** Sends `message` to the page connected, if any. */
  #send(message: ToEditor): void {
    this.#socket.send(message);
  }
}

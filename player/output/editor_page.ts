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
 * One page at a time: a second page while one is connected is closed with `EDITOR_TAKEN` and
 * the first keeps the editor. Each message is within `EDITOR_SOCKET_BOUNDS` and of the page's
 * schema, or the page is closed (1009, 1008: `socket_guard.ts`); its edits run one at a time,
 * at most `EDITOR_EDITS_WAITING` waiting, the next refused at once.
 * @module
 */
import type { EditApplyParams, EditApplyResult, EditRequest } from "../../protocol/edits/mod.ts";
import {
  EDITOR_CLOSED,
  EDITOR_EDITS_WAITING,
  EDITOR_SOCKET_BOUNDS,
  EDITOR_TAKEN,
  FromEditor,
  type ToEditor,
} from "../../protocol/editor_page.ts";
import type { Preset } from "../../protocol/model.ts";
import type { RenderState, ShaderPass } from "../../protocol/output.ts";
import type { EditorState } from "../../protocol/state.ts";
import { Refusal } from "../errors.ts";
import { withParameterDefault } from "../isf/mod.ts";
import { drawsIsf, type IsfPrograms } from "./isf_programs.ts";
import { PagePrograms } from "./page_programs.ts";
import { shaderPass } from "./render_state.ts";
import { BUILT_IN_PROGRAMS } from "./shaders.ts";
import { MessageGuard, parseMessage, type Violation } from "./socket_guard.ts";
import type { SocketFaultLog } from "./socket_log.ts";

/** The preview's width at most (pixels): a second full-size picture would halve software GL. */
export const PREVIEW_WIDTH = 480;
/** The preview pass's id: a program its GL refuses gives way to the last that compiled. */
const PREVIEW_ID = "editor-preview";

/** A copy of `pass` whose ISF targets are `scale` times their size (at least a pixel). */
function scaled(pass: ShaderPass, scale: number): ShaderPass {
  const sizes = pass.sizes?.map(([w, h]): [number, number] => [
    Math.max(1, Math.round(w * scale)),
    Math.max(1, Math.round(h * scale)),
  ]);
  return sizes ? { ...pass, sizes } : { ...pass };
}

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
  readonly #monotonic: () => number;
  readonly #faults: SocketFaultLog | null;
  #socket: WebSocket | null = null;
  /** The page's edits: the last one's end, and how many wait (the one running included). */
  #edits: Promise<void> = Promise.resolve();
  #waiting = 0;
  /** The preset and time last sent, so that an unchanged one is not sent again. */
  #sent: { preset: Preset; updatedAt: string | null; openedAt: string } | null = null;

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
    this.#monotonic = options.monotonic ?? (() => performance.now());
    this.#faults = options.faults ?? null;
  }

  /** A page connected to the editor's socket: it has the editor, unless another page has. */
  connected(socket: WebSocket): void {
    const current = this.#socket;
    if (current && current.readyState <= WebSocket.OPEN) {
      // The page connected keeps the editor; the newcomer says another window has it.
      socket.onopen = () => socket.close(EDITOR_TAKEN, "another editor page has the editor");
      this.#faults?.note("second page", "a second editor page's socket, closed");
      return;
    }
    this.#socket = socket;
    const guard = new MessageGuard(EDITOR_SOCKET_BOUNDS, this.#monotonic);
    let isClosing = false;
    socket.onopen = () => {
      this.#programs.pageConnected();
      this.#sent = null;
      this.#send({ type: "programs", programs: [...BUILT_IN_PROGRAMS] });
      this.#refresh();
    };
    socket.onmessage = (event) => {
      if (isClosing) return;
      const violation = guard.check(event.data) ?? this.#onMessage(event.data as string);
      if (!violation) return;
      isClosing = true;
      this.#faults?.note(violation.kind, `the editor page's socket: ${violation.reason}`);
      socket.close(violation.code, violation.kind);
    };
    socket.onclose = () => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#hooks.hidden?.();
    };
  }

  /** The show changed: the page gets the preset if it changed and the preview's state. */
  push(state: RenderState | null): void {
    const editor = this.#hooks.state();
    if (!editor) {
      // Connected while it was open: no page of a closed editor stays connected.
      this.#socket?.close(EDITOR_CLOSED, "the editor closed");
      this.#socket = null;
      return;
    }
    if (this.#socket?.readyState !== WebSocket.OPEN) return;
    const { preset, updatedAt, openedAt } = editor;
    const sent = this.#sent;
    if (
      sent?.preset !== preset || sent.updatedAt !== updatedAt || sent.openedAt !== openedAt
    ) {
      this.#sent = { preset, updatedAt, openedAt };
      this.#send({ type: "editor", preset, updatedAt, openedAt });
    }
    if (!state) return;
    const preview = this.#previewState(state, preset);
    const { programs, drop } = this.#programs.prepare(preview, state.clock.now);
    if (programs.length > 0 || drop.length > 0) {
      this.#send({ type: "programs", programs, ...(drop.length > 0 ? { drop } : {}) });
    }
    this.#send({ type: "state", state: preview });
  }

  /** Closes the page's socket (the output stops). */
  close(): void {
    this.#socket?.close();
    this.#socket = null;
  }

  /**
   * The output's state, at most PREVIEW_WIDTH wide and silent, with the preset drawn over
   * the whole picture with its defaults (an effect takes the picture as `inputImage`).
   */
  #previewState(state: RenderState, preset: Preset): RenderState {
    const { display } = state;
    const scale = Math.min(1, PREVIEW_WIDTH / display.width);
    const size = {
      width: Math.max(1, Math.round(display.width * scale)),
      height: Math.max(1, Math.round(display.height * scale)),
    };
    // The preset as a Visualizer of its own over the picture: its defaults, and for ISF
    // PASSES its targets' sizes at the preview's size (`shaderPass`, as the output's).
    const item = { id: PREVIEW_ID, name: preset.name, engine: preset.type, presetId: preset.id };
    // A quarantined preset (its shader stopped the output) is not previewed until its code changes:
    // the editor's page shares the output's GPU process.
    const passes = drawsIsf(preset) && !preset.quarantine
      ? [
        shaderPass({ ...item, enabled: true, params: {} }, {
          presets: [preset],
          programs: this.#programs.programs,
          size,
        }),
      ]
      : [];
    return {
      ...state,
      display: { ...display, ...size },
      // Copies (the passes of a program this page refused are changed for the last working),
      // their targets scaled as the picture is.
      layers: state.layers.map((l) => ({ ...l, effects: l.effects.map((e) => scaled(e, scale)) })),
      visualizers: [...state.visualizers.map((v) => scaled(v, scale)), ...passes],
      level: 0,
    };
  }

  /** Handles one message within bounds; what is wrong with it, or null. */
  #onMessage(data: string): Violation | null {
    const parsed = parseMessage(FromEditor, data, "an editor message");
    if ("violation" in parsed) return parsed.violation;
    this.#dispatch(parsed.message);
    return null;
  }

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
  #queueEdit(message: Extract<FromEditor, { type: "edit" | "param" | "history" }>): void {
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
  async #edit(message: Extract<FromEditor, { type: "edit" | "param" | "history" }>) {
    const { id } = message;
    try {
      const result = await this.#hooks.edit(() => ({
        projectId: null,
        edits: [this.#editOf(message)],
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

  /**
   * The catalog edit a page message stands for, made from the preset as it is now (in the
   * edit's turn). Code typed over a change the page had not seen yet is refused.
   */
  #editOf(message: Extract<FromEditor, { type: "edit" | "param" | "history" }>): EditRequest {
    const editor = this.#hooks.state();
    if (!editor) throw new Refusal("The editor is closed");
    if (message.type === "history") return { name: `project.${message.direction}`, params: {} };
    const { preset } = editor;
    const target = { kind: preset.kind, presetID: preset.id };
    if (message.type === "edit") {
      if (message.base !== preset.code) {
        throw new Refusal(
          "The code changed elsewhere since the editor showed it: take the new code, or apply again",
        );
      }
      return { name: "preset.update", params: { ...target, code: message.code } };
    }
    const { name, value } = message;
    if (preset.type === "isf") {
      let code: string;
      try {
        code = withParameterDefault(preset.code, name, value);
      } catch (error) {
        throw new Refusal((error as Error).message);
      }
      return { name: "preset.update", params: { ...target, code } };
    }
    const parameters = preset.parameters.map((p) => p.name === name ? { ...p, default: value } : p);
    return { name: "preset.update", params: { ...target, parameters } };
  }

  #send(message: ToEditor): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(message));
  }
}

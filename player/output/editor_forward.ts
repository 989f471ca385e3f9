/**
 * The editor page's edits sent to the service instead of applied here (protocol 1.17): in a
 * rig group (the service's `initialize` says `forwardEditorEdits`) an edit of the output's own
 * editor page must go through the group's log like any other, so the player hands the edits it
 * built (`editor_edits.ts`) to the service as an `editor.edit` notification and answers the
 * page with what the service's `editor.answer` says. Alone, nothing is forwarded: the player
 * applies the page's edits itself, as before (docs/rigs.md, "The show replicated").
 * @module
 */
import type { EditApplyParams, EditApplyResult } from "../../protocol/edits/mod.ts";
import type { EditorAnswerParams, EditorEditParams } from "../../protocol/methods.ts";
import { Refusal } from "../errors.ts";

/** Codes whose message alone says what to change, as when the player refuses the edit itself. */
const PLAIN_CODES = new Set(["EDIT_REFUSED", "INVALID_SHADER", "INVALID_MESSAGE"]);

/** The page's edits on their way to the service, each waiting for its answer. */
export class EditorForward {
  #isOn = false;
  #send: ((params: EditorEditParams) => void) | null = null;
  #next = 0;
  readonly #waiting = new Map<number, PromiseWithResolvers<EditApplyResult>>();

  /** Whether the page's edits go to the service (a rig group) rather than to this player. */
  get isOn(): boolean {
    return this.#isOn;
  }

  /** The service's `initialize`: whether it asks for the page's edits. */
  initialized(isOn: boolean): void {
    this.#isOn = isOn;
  }

  /** A session with the service began: `send` writes the `editor.edit` notification. */
  connected(send: (params: EditorEditParams) => void): void {
    this.#send = send;
  }

  /**
   * The session ended: the edits waiting are refused (whether the service ran them is
   * unknown), and later ones until a service connects again (forwarding stays on: applying
   * them here would leave them on this rig only).
   */
  disconnected(): void {
    this.#send = null;
    for (const waiting of this.#waiting.values()) {
      waiting.reject(
        new Refusal(
          "The service went away before answering this edit: it may have been applied; look at the code, then apply again",
        ),
      );
    }
    this.#waiting.clear();
  }

  /**
   * Sends `params` to the service; its answer (`answered`).
   * @throws {Refusal} when no service is connected, or as the service refused it
   */
  forward(params: EditApplyParams): Promise<EditApplyResult> {
    if (!this.#send) {
      return Promise.reject(
        new Refusal("The service is not connected: the edit was not applied; apply again soon"),
      );
    }
    const id = this.#next++;
    const waiting = Promise.withResolvers<EditApplyResult>();
    this.#waiting.set(id, waiting);
    this.#send({ id, projectId: params.projectId ?? null, edits: params.edits });
    return waiting.promise;
  }

  /** The service's `editor.answer`: the edit of its id is done or refused (unknown ids: none). */
  answered(params: EditorAnswerParams): void {
    const waiting = this.#waiting.get(params.id);
    if (!waiting) return;
    this.#waiting.delete(params.id);
    const { result, error } = params;
    if (result) return waiting.resolve(result as EditApplyResult);
    const code = error?.code ?? "SERVER_ERROR";
    const message = error?.message ?? "The service answered neither a result nor a refusal";
    waiting.reject(
      new Refusal(PLAIN_CODES.has(code) ? message : `${code}: ${message}`, undefined, {
        code,
        problems: error?.problems ?? [],
      }),
    );
  }
}

/**
 * The editor page's edits, as the edit catalog's: the code typed is `preset.update` of the
 * code, a control is `preset.update` of the code with the input's DEFAULT changed (isf) or of
 * the parameters (other types), undo and redo are `project.undo` and `project.redo`.
 * @module
 */
import type { EditRequest } from "../../protocol/edits/mod.ts";
import type { FromEditor } from "../../protocol/editor_page.ts";
import type { EditorState } from "../../protocol/state.ts";
import { Refusal } from "../errors.ts";
import { withParameterDefault } from "../isf/mod.ts";

/** A message of the editor page that is an edit. */
export type EditMessage = Extract<FromEditor, { type: "edit" | "param" | "history" }>;

/**
 * The catalog edit a page message stands for, made from the preset open in `editor` as it is
 * now (in the edit's turn). Code typed over a change the page had not seen yet is refused.
 */
export function editOf(editor: EditorState | null, message: EditMessage): EditRequest {
  if (!editor) throw new Refusal("The editor is closed");
  if (message.type === "history") return { name: `project.${message.direction}`, params: {} };
  const { preset } = editor;
  const target = { kind: preset.kind, presetID: preset.id };
  if (message.type === "edit") {
    const { vertexCode, vertexBase } = message;
    const isVertexMoved = vertexCode !== undefined && vertexBase !== (preset.vertexCode ?? "");
    if (message.base !== preset.code || isVertexMoved) {
      throw new Refusal(
        "The code changed elsewhere since the editor showed it: take the new code, or apply again",
      );
    }
    const vertex = vertexCode === undefined ? {} : { vertexCode };
    return { name: "preset.update", params: { ...target, code: message.code, ...vertex } };
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

/**
 * The editor page's edits forwarded to the service (player protocol 1.17), on the player's
 * side: on only after an `initialize` that asks for it, sent as `editor.edit`, answered by
 * `editor.answer` (a result, or a refusal by the service's code), refused when the session
 * ends before the answer or while no service is connected; never applied here meanwhile.
 */
import assert from "node:assert/strict";
import type { EditApplyResult } from "../../../protocol/edits/mod.ts";
import type { EditorEditParams } from "../../../protocol/methods.ts";
import { EditorForward } from "../../../player/output/editor_forward.ts";
import { Refusal } from "../../../player/errors.ts";
import { connectPlayer } from "../../../tools/testing/player_rpc.ts";
import { until } from "../../../tools/testing/until.ts";

const EDIT = { projectId: null, edits: [{ name: "project.undo", params: {} }] };

const RESULT: EditApplyResult = {
  projectId: "show",
  revision: 3,
  edits: [{ name: "project.undo", message: "Undone" }],
  changed: { clips: [], songs: [], fields: [], presets: [] },
} as unknown as EditApplyResult;

/** What `promise` was refused with (it must be). */
async function refusalOf(promise: Promise<unknown>): Promise<Refusal> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Refusal, String(error));
    return error;
  }
  assert.fail("not refused");
}

Deno.test("EditorForward: answered by id, refused by the service's code, or when the service goes", async () => {
  const forward = new EditorForward();
  assert.equal(forward.isOn, false);
  forward.initialized(true);
  assert.match((await refusalOf(forward.forward(EDIT))).message, /service is not connected/);
  const sent: EditorEditParams[] = [];
  forward.connected((params) => sent.push(params));
  const first = forward.forward(EDIT);
  forward.answered({ id: 99, result: RESULT }); // no such edit waits: ignored
  forward.answered({ id: sent[0]!.id, result: RESULT });
  assert.deepEqual(await first, RESULT);
  assert.deepEqual(sent[0]!.edits, EDIT.edits);

  const cut = forward.forward(EDIT);
  forward.answered({
    id: sent[1]!.id,
    error: { code: "GROUP_NO_QUORUM", message: "This rig is cut off" },
  });
  assert.equal((await refusalOf(cut)).message, "GROUP_NO_QUORUM: This rig is cut off");
  const bad = forward.forward(EDIT);
  forward.answered({
    id: sent[2]!.id,
    error: { code: "INVALID_SHADER", message: "Invalid params.code", problems: [{ line: 1 }] },
  });
  const shader = await refusalOf(bad);
  assert.equal(shader.message, "Invalid params.code");
  assert.deepEqual(shader.data?.problems, [{ line: 1 }]);

  const lost = forward.forward(EDIT);
  forward.disconnected();
  assert.match((await refusalOf(lost)).message, /went away before answering/);
  assert.equal(forward.isOn, true); // still on: a page's edit is never kept on this rig alone
});

Deno.test("player: initialize's forwardEditorEdits turns forwarding on; editor.edit out, editor.answer in", async () => {
  const p = await connectPlayer();
  let isClosed = false;
  try {
    await p.call("initialize", { protocolVersion: "1.17", forwardEditorEdits: true });
    const forward = p.running.app.editorForward;
    assert.equal(forward.isOn, true);
    const answer = forward.forward(EDIT);
    const sent = () => p.seen.find((m) => "method" in m && m.method === "editor.edit");
    await until("the editor.edit notification", () => sent() !== undefined);
    const { id } = (sent() as { params: EditorEditParams }).params;
    assert.deepEqual((await p.call("editor.answer", { id, result: RESULT })).result, {});
    assert.equal((await answer).revision, 3);
    const lost = refusalOf(forward.forward(EDIT)); // refused while the pipe closes
    isClosed = true;
    await p.close();
    assert.match((await lost).message, /went away before answering/);
  } finally {
    if (!isClosed) await p.close();
  }
});

Deno.test("player: without forwardEditorEdits (alone) nothing is forwarded", async () => {
  const p = await connectPlayer();
  try {
    await p.call("initialize", { protocolVersion: "1.17" });
    assert.equal(p.running.app.editorForward.isOn, false);
  } finally {
    await p.close();
  }
});

/**
 * The output's own editor page in a rig group (player protocol 1.17): the player forwards the
 * page's edit to the service (`editor.edit`) instead of applying it, the service runs it
 * through its `EditRunner` (so through the group's log: here a log that applies what it
 * commits, as the real one does), and the page gets the answer: done, or refused with the
 * group's code. Alone, the player applies the page's edit itself and forwards nothing. One
 * player in process on a virtual clock per test, no browser: the page's edit is made as the
 * page's socket makes it (`editorHooks(app).edit` of `editOf` the page's message).
 */
import assert from "node:assert/strict";
import { Core, CueportError } from "../../../server/core/mod.ts";
import type { LoggedBatch } from "../../../server/core/edit_runner.ts";
import { PlayerSupervisor } from "../../../server/player_client/mod.ts";
import type { PlayerApp } from "../../../player/app.ts";
import { editorHooks } from "../../../player/app_output.ts";
import { editOf } from "../../../player/output/editor_edits.ts";
import { Refusal } from "../../../player/errors.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import { inProcessLauncher } from "../../../tools/testing/in_process.ts";

/** A service's core over one player, its editor open on a user preset with a control `size`. */
async function startRig(options: { forwardEditorEdits: boolean }) {
  const dataDir = await fixtureDataDir();
  const launcher = inProcessLauncher(dataDir);
  const supervisor = new PlayerSupervisor(launcher, { backoff: { initialMs: 1 }, ...options });
  const core = new Core(supervisor, { coalesceMs: 0 });
  let forwarded = 0;
  const run = supervisor.oneditoredit;
  supervisor.oneditoredit = (params) => {
    forwarded++;
    run(params);
  };
  supervisor.start();
  assert.ok(await supervisor.waitReady(120_000));
  const added = await core.runEdit({
    name: "preset.add",
    params: {
      kind: "effect",
      name: "Glow",
      type: "glow",
      parameters: [{ name: "size", type: "number", min: 0, max: 10, default: 2 }],
    },
  }, { isLocal: true });
  const presetID = added.edits[0]!.created!.presetID!;
  await core.runAction({ name: "OPEN_EDITOR", params: ["effect", presetID] });
  const app: PlayerApp = launcher.players[0]!.app;
  /** The page moves its control `size` to `value`: the edit its socket runs, answered. */
  const moveSize = (value: number) =>
    editorHooks(app).edit(() => ({
      projectId: null,
      edits: [editOf(app.appState.editor, { type: "param", id: 1, name: "size", value })],
    }));
  const size = () => app.presets().find((p) => p.id === presetID)!.parameters[0]!.default;
  const close = async () => {
    await supervisor.stop();
    core.close();
    await Deno.remove(dataDir, { recursive: true });
  };
  return { core, app, moveSize, size, forwarded: () => forwarded, close };
}

Deno.test("editor page in a group: its edit goes through the service's log, then is answered", async () => {
  const rig = await startRig({ forwardEditorEdits: true });
  try {
    assert.equal(rig.app.editorForward.isOn, true);
    const committed: LoggedBatch[] = [];
    let seed = 0;
    rig.core.edits.replicateTo({
      commit: async (batch) => {
        committed.push(batch);
        const applied = await rig.core.edits.applyLogged(batch, `r${++seed}`);
        if ("refusal" in applied) throw applied.refusal;
        return applied.result;
      },
    });
    const result = await rig.moveSize(5);
    assert.equal(rig.forwarded(), 1);
    assert.equal(committed.length, 1);
    assert.equal(committed[0]!.edits[0]!.name, "preset.update");
    assert.equal(rig.size(), 5);
    assert.equal(result.edits[0]!.name, "preset.update");

    // A rig cut off from its quorum: refused with the group's code, nothing applied here.
    rig.core.edits.replicateTo({
      commit: () =>
        Promise.reject(
          new CueportError("GROUP_NO_QUORUM", "This rig is cut off from its group's quorum"),
        ),
    });
    await assert.rejects(rig.moveSize(7), (error) => {
      assert.ok(error instanceof Refusal);
      assert.match(error.message, /^GROUP_NO_QUORUM: This rig is cut off/);
      return true;
    });
    assert.equal(rig.forwarded(), 2);
    assert.equal(rig.size(), 5);
  } finally {
    await rig.close();
  }
});

Deno.test("editor page alone: the player applies its edit itself, nothing is forwarded", async () => {
  const rig = await startRig({ forwardEditorEdits: false });
  try {
    assert.equal(rig.app.editorForward.isOn, false);
    await rig.moveSize(4);
    assert.equal(rig.size(), 4);
    assert.equal(rig.forwarded(), 0);
  } finally {
    await rig.close();
  }
});

/**
 * A quarantined preset (its shader stopped the output's frames) stays quarantined on disk
 * and across a restart, through edits that leave its code, and through undo and redo; an
 * edit of its code clears it. The quarantine is no step of its own in the history.
 */
import assert from "node:assert/strict";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import type { StateUpdate } from "../../../protocol/state.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";

const PRESET = { kind: "effect", name: "Loop", type: "shader", code: "void main() {}" };

async function open(dataDir: string) {
  const app = await PlayerApp.open({ dataDir, clock: new VirtualClock() });
  const updates: StateUpdate[] = [];
  app.onUpdate = (u) => void updates.push(u);
  const edit = async (name: string, params: Record<string, unknown> = {}) =>
    (await app.applyEdits({ projectId: null, edits: [{ name, params }] })).edits[0]!;
  return { app, updates, edit };
}

Deno.test("PlayerApp.quarantinePreset() is written, reported and kept across a restart; no history step", async () => {
  const dataDir = await fixtureDataDir();
  const { app, updates, edit } = await open(dataDir);
  const presetID = (await edit("preset.add", PRESET)).created!.presetID!;
  const quarantine = () => app.presets().find((p) => p.id === presetID)?.quarantine;
  assert.equal(quarantine(), null, "null by default");
  assert.equal(await app.quarantinePreset(presetID, "the page drew no frame"), true);
  assert.equal(quarantine()?.reason, "the page drew no frame");
  assert.ok(!Number.isNaN(Date.parse(quarantine()!.at)));
  const update = updates.at(-1)!;
  assert.equal(update.updateType, "presets");
  assert.deepEqual(update.data.changed, [presetID]);
  assert.equal(await app.quarantinePreset("fx-kaleidoscope", "built in"), false);
  await app.close();

  const again = await open(dataDir);
  try {
    const stored = again.app.presets().find((p) => p.id === presetID);
    assert.equal(stored?.quarantine?.reason, "the page drew no frame", "kept on disk");
    await again.edit("project.undo");
    assert.ok(!again.app.presets().some((p) => p.id === presetID), "undo undid the add");
  } finally {
    await again.app.close();
  }
});

Deno.test("Editor: only an edit of a quarantined preset's code clears it; undo and redo keep it with its code", async () => {
  const { app, edit } = await open(await fixtureDataDir());
  try {
    const presetID = (await edit("preset.add", PRESET)).created!.presetID!;
    await edit("preset.update", { kind: "effect", presetID, name: "Loop 2" });
    await app.quarantinePreset(presetID, "stalled");
    const quarantine = () => app.presets().find((p) => p.id === presetID)?.quarantine ?? null;

    await edit("preset.update", { kind: "effect", presetID, name: "Loop 3" });
    assert.equal(quarantine()?.reason, "stalled", "a rename keeps it");
    await edit("preset.update", { kind: "effect", presetID, code: PRESET.code });
    assert.equal(quarantine()?.reason, "stalled", "the same code keeps it");
    await edit("preset.update", { kind: "effect", presetID, code: "void main() { }" });
    assert.equal(quarantine(), null, "new code clears it");

    await edit("project.undo");
    assert.equal(
      quarantine()?.reason,
      "stalled",
      "undoing the code edit brings the old code back, quarantined",
    );
    await edit("project.redo");
    assert.equal(quarantine(), null);
    await edit("project.undo");
    await edit("project.undo"); // the rename to Loop 3
    await edit("project.undo"); // the rename to Loop 2, made before the quarantine
    const preset = app.presets().find((p) => p.id === presetID)!;
    assert.equal(preset.name, "Loop");
    assert.equal(preset.quarantine?.reason, "stalled", "the old step does not free the old code");
  } finally {
    await app.close();
  }
});

Deno.test("PlayerApp.quarantinePreset() holds the quarantine when presets.json cannot be written", async () => {
  const { app, edit } = await open(await fixtureDataDir());
  try {
    const presetID = (await edit("preset.add", PRESET)).created!.presetID!;
    app.store.hooks.beforeRename = () => {
      throw new Error("No space left on device (os error 28)");
    };
    await assert.rejects(app.quarantinePreset(presetID, "stalled"), /No space left/);
    app.store.hooks = {};
    const preset = app.presets().find((p) => p.id === presetID);
    assert.equal(preset?.quarantine?.reason, "stalled", "off the output all the same");
  } finally {
    await app.close();
  }
});

Deno.test("PlayerApp: an edit of a quarantined preset's vertexCode clears it, and an undo across one drops it", async () => {
  const { app, edit } = await open(await fixtureDataDir());
  try {
    const presetID = (await edit("preset.add", { ...PRESET, vertexCode: "// a" })).created!
      .presetID!;
    await app.quarantinePreset(presetID, "stalled");
    const quarantine = () => app.presets().find((p) => p.id === presetID)?.quarantine ?? null;
    await edit("preset.update", { kind: "effect", presetID, vertexCode: "// a" });
    assert.equal(quarantine()?.reason, "stalled", "the same vertex shader keeps it");
    await edit("preset.update", { kind: "effect", presetID, vertexCode: "// b" });
    assert.equal(quarantine(), null, "another vertex shader clears it");
    // "// c" stalls; the undo brings "// b" back (the same code), a vertex shader that never did.
    await edit("preset.update", { kind: "effect", presetID, vertexCode: "// c" });
    await app.quarantinePreset(presetID, "stalled again");
    await edit("project.undo");
    const preset = app.presets().find((p) => p.id === presetID)!;
    assert.equal(preset.vertexCode, "// b");
    assert.equal(preset.quarantine, null, "the undo's vertex shader is not quarantined");
    // The redo brings "// c" back, which stalled: still quarantined.
    await edit("project.redo");
    assert.equal(quarantine()?.reason, "stalled again", "the redo keeps the quarantine of now");
    await edit("project.undo");
    assert.equal(quarantine(), null);
    await edit("project.redo");
    assert.equal(quarantine()?.reason, "stalled again");
  } finally {
    await app.close();
  }
});

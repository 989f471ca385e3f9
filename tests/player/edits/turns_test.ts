/**
 * Edits that arrive together take turns: the editor window's come from
 * beside the player's request order, and a commit awaits (the shader's check
 * on a worker, the disk) between reading the Project and writing it, so two
 * at once must not both start from the same state.
 */
import assert from "node:assert/strict";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import { fixtureDataDir } from "../../_helpers/fixture.ts";
import { INVERT } from "../isf/_shaders.ts";

Deno.test("Edits applied at once take turns: none is lost, each is one undo step", async () => {
  const dataDir = await fixtureDataDir();
  const app = await PlayerApp.open({ dataDir, clock: new VirtualClock() });
  try {
    const add = (name: string) =>
      app.applyEdits({
        projectId: null,
        edits: [{
          name: "preset.add",
          params: { kind: "effect", name, type: "isf", code: INVERT },
        }],
      });
    const results = await Promise.all([add("One"), add("Two"), add("Three")]);
    const names = app.presets().filter((p) => !p.builtIn).map((p) => p.name);
    assert.deepEqual(names.sort(), ["One", "Three", "Two"]);
    assert.deepEqual(results.map((r) => r.history.undo), [1, 2, 3]);
    const undone = await app.applyEdits({
      projectId: null,
      edits: [{ name: "project.undo", params: {} }],
    });
    assert.equal(undone.history.undo, 2);
    assert.deepEqual(app.presets().filter((p) => !p.builtIn).map((p) => p.name).sort(), [
      "One",
      "Two",
    ]);
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

/**
 * Edits that arrive together take turns: the editor window's come from
 * beside the player's request order, and a commit awaits (the shader's check
 * on a worker, the disk) between reading the Project and writing it, so two
 * at once must not both start from the same state.
 */
import assert from "node:assert/strict";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import { until } from "../../../tools/testing/until.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";
import { EditorPage } from "../../../player/output/editor_page.ts";
import { IsfPrograms } from "../../../player/output/isf_programs.ts";

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

Deno.test("A control moved in the editor page beside an MCP edit of the code loses neither", async () => {
  const dataDir = await fixtureDataDir();
  const app = await PlayerApp.open({ dataDir, clock: new VirtualClock() });
  try {
    const added = await app.applyEdits({
      projectId: null,
      edits: [{
        name: "preset.add",
        params: { kind: "effect", name: "Inv", type: "isf", code: INVERT },
      }],
    });
    const presetID = added.edits[0]!.created!.presetID!;
    await app.runAction({
      name: "OPEN_EDITOR",
      params: { kind: "effect", presetID },
      projectId: null,
      velocity: 1,
    });
    const sent: { type: string; ok?: boolean }[] = [];
    const socket = {
      readyState: WebSocket.OPEN,
      send: (text: string) => sent.push(JSON.parse(text)),
      close() {},
    } as unknown as WebSocket & { onmessage(e: { data: string }): void; onopen(): void };
    const page = new EditorPage({
      hooks: {
        state: () => app.appState.editor,
        shown() {},
        closed() {},
        edit: (build) => app.applyBuiltEdits(build),
      },
      programs: new IsfPrograms(),
      now: () => 0,
      refresh() {},
    });
    page.connected(socket);
    socket.onopen();
    const other = INVERT.replace("1.0 - c.rgb", "c.gbr");
    const mcp = app.applyEdits({
      projectId: null,
      edits: [{ name: "preset.update", params: { kind: "effect", presetID, code: other } }],
    });
    socket.onmessage({
      data: JSON.stringify({ type: "param", id: 1, name: "amount", value: 0.5 }),
    });
    await mcp;
    await until("the page's answer", () => sent.some((m) => m.type === "edited"));
    const code = app.presets().find((p) => p.id === presetID)!.code;
    assert.ok(code.includes("c.gbr"), "the MCP edit is kept");
    assert.ok(code.includes(`"DEFAULT": 0.5`), "the control is kept");
    assert.deepEqual(sent.filter((m) => m.type === "edited").map((m) => m.ok), [true]);
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

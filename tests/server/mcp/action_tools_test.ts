import assert from "node:assert/strict";
import { connectMcp, type McpTestClient } from "../../../tools/testing/mcp_client.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";

// deno-lint-ignore no-explicit-any
async function ok(mcp: McpTestClient, tool: string, args: Record<string, unknown>): Promise<any> {
  const result = await mcp.call(tool, args);
  assert.equal(result.isError, undefined, `${tool}: ${result.content[0]?.text}`);
  return result.structuredContent;
}

Deno.test("MCP app_playback, app_system and app_control run actions with named params", async () => {
  const svc = await startTestService();
  const mcp = await connectMcp(svc.base);
  try {
    const selected = await ok(mcp, "app_playback", { action: "SONG_SELECT_BY_ID", songID: "s2" });
    assert.equal(selected.action, "SONG_SELECT_BY_ID");
    // base 1: the first Clip of the active Song (c5), at velocity 64.
    const played = await ok(mcp, "app_playback", {
      action: "PLAY_CLIP_BY_INDEX_IN",
      index: 1,
      base: 1,
      velocity: 64,
    });
    assert.deepEqual(played.params, { index: 0 });
    assert.equal(played.velocity, 64);
    let state = (await svc.get("/api/v1/projects/show/playstate")).body;
    assert.equal(state.activeSongID, "s2");
    assert.equal(state.clips.find((c: { clipID: string }) => c.clipID === "c5").state, "playing");
    await ok(mcp, "app_playback", { action: "STOP_ALL_CLIPS_IN" });
    state = (await svc.get("/api/v1/projects/show/playstate")).body;
    assert.equal(state.clips.some((c: { state: string }) => c.state === "playing"), false);

    await ok(mcp, "app_system", { action: "MUTE_TOGGLE" });
    await ok(mcp, "app_system", { action: "OUTPUT_LEVEL_IN", level: 0.4 });
    const app = (await svc.get("/api/v1/app-state")).body;
    assert.equal(app.muted, true);
    assert.equal(app.volume, 0.4);

    await ok(mcp, "app_control", { action: "SET_CONTROL", controlID: "a", value: 0.5 });
    await ok(mcp, "app_control", { action: "SET_PARAM", targetID: "clip:c1/opacity", value: 0.3 });
    const list = await ok(mcp, "app_control", { action: "list" });
    assert.equal(list.controls.length, 26);
    assert.equal(list.values.A, 0.5);
    assert.equal((await svc.get("/api/v1/projects/show/playstate")).body.controls.A, 0.5);
    const c1 = (await svc.get("/api/v1/projects/show/clips?ids=c1")).body.clips[0];
    assert.equal(c1.current.live.opacity, 0.3);
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

Deno.test("MCP app_open_editor, then app_effect_edit on that preset: the editor follows, clients get presets", async () => {
  const svc = await startTestService();
  const mcp = await connectMcp(svc.base);
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
    const added = await ok(mcp, "app_effect_edit", {
      edits: [{
        name: "preset.add",
        params: { name: "Warp", type: "warp", code: "void main() {}" },
      }],
    });
    const presetId = added.edits[0].created.presetID;
    assert.equal((await svc.get(`/api/v1/presets/effect/${presetId}`)).status, 200);
    await ok(mcp, "app_open_editor", { action: "OPEN_EDITOR", kind: "effect", presetID: presetId });
    assert.equal((await svc.get("/api/v1/app-state")).body.editor.presetId, presetId);
    ws.messages.length = 0;

    await ok(mcp, "app_effect_edit", {
      edits: [{
        name: "preset.update",
        params: {
          presetID: presetId,
          code: "void main() { warp(); }",
          parameters: [{ name: "amount", type: "number", min: 0, max: 1, default: 0.2 }],
        },
      }],
    });
    const editor = (await svc.get("/api/v1/app-state")).body.editor;
    assert.equal(editor.preset.code, "void main() { warp(); }");
    assert.equal(editor.preset.parameters[0].name, "amount");
    assert.notEqual(editor.updatedAt, null);
    // Clients get the preset change and the editor's, in one coalesced batch or two.
    type Update = { updateType: string; data: { event?: string } };
    const seen: Update[] = [];
    const has = (type: string, event?: string) =>
      seen.some((u) => u.updateType === type && (event === undefined || u.data.event === event));
    while (!has("presets") || !has("appState", "editor-preset-changed")) {
      const batch = await ws.take((m) => m.event === "state-update");
      seen.push(...batch.payload);
    }
    // A visualizer tool refuses an effect preset: the kind is its own.
    const wrong = await mcp.callError("app_visualizer_edit", {
      edits: [{ name: "preset.update", params: { presetID: presetId, name: "x" } }],
    });
    assert.equal(wrong.code, "NOT_FOUND");
  } finally {
    await ws.close();
    await mcp.close();
    await svc.stop();
  }
});

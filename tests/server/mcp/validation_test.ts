import assert from "node:assert/strict";
import { connectMcp } from "../../../tools/testing/mcp_client.ts";
import { startTestService } from "../../../tools/testing/service.ts";

Deno.test("MCP validation errors: tool results naming the field, with a hint of what to call", async () => {
  const svc = await startTestService();
  const mcp = await connectMcp(svc.base);
  try {
    const unknownClip = await mcp.callError("app_get_clip", { clipId: "nope" });
    assert.equal(unknownClip.code, "NOT_FOUND");
    assert.match(unknownClip.hint, /app_get_clips/);
    const badAction = await mcp.callError("app_playback", { action: "PLAY_IN", clipID: "c1" });
    assert.equal(badAction.code, "INVALID_MESSAGE");
    assert.equal(badAction.details.field, "clipID");
    const missing = await mcp.callError("app_playback", { action: "SEEK_CLIP_IN", clipID: "c1" });
    assert.equal(missing.details.field, "percent");
    assert.match(missing.message, /^Invalid percent: is required/);
    const range = await mcp.callError("app_system", { action: "OUTPUT_LEVEL_IN", level: 3 });
    assert.equal(range.code, "INVALID_MESSAGE");
    assert.equal(range.details.field, "level");
    const extra = await mcp.callError("app_get_songs", { nope: 1 });
    assert.equal(extra.code, "INVALID_MESSAGE");
    const stopUnknown = await mcp.callError("app_playback", {
      action: "STOP_CLIP_IN",
      clipID: "ghost",
    });
    assert.match(stopUnknown.hint, /app_get_clips/);

    const wrongTool = await mcp.callError("app_clip_edit", {
      edits: [{ name: "song.add", params: { title: "x" } }],
    });
    assert.equal(wrongTool.details.field, "edits.0.name");
    assert.match(wrongTool.message, /app_song_edit/);
    const badParam = await mcp.callError("app_clip_edit", {
      edits: [{ name: "clip.move", params: { clipID: "c1", position: -1 } }],
    });
    assert.equal(badParam.code, "INVALID_MESSAGE");
    assert.equal(badParam.details.field, "edits.0.params.position");
    assert.match(badParam.hint, /app_describe_edit/);
    const unknownSong = await mcp.callError("app_song_edit", {
      edits: [{ name: "song.delete", params: { songID: "ghost" } }],
    });
    assert.match(unknownSong.hint, /app_get_songs/);
    const noEdit = await mcp.callError("app_describe_edit", { name: "clip.explode" });
    assert.equal(noEdit.code, "NOT_FOUND");
    const both = await mcp.callError("app_file_edit", { path: "/a", contentBase64: "AA==" });
    assert.equal(both.details.field, "path");
    // Nothing changed.
    assert.equal((await svc.get("/api/v1/projects/show")).body.revision, 0);

    await assert.rejects(
      () => mcp.client.callTool({ name: "app_nope", arguments: {} }),
      /Unknown tool "app_nope"/,
    );
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

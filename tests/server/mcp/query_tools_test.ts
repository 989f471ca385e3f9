import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { encodePng } from "../../../player/media/encode.ts";
import { TOOL_NAMES } from "../../../server/mcp/mod.ts";
import { formatOf } from "../../../tools/testing/images.ts";
import { connectMcp } from "../../../tools/testing/mcp_client.ts";
import { startTestService } from "../../../tools/testing/service.ts";

Deno.test("MCP tools/list: exactly the spec's tools, with object schemas, annotations and descriptions", async () => {
  const svc = await startTestService();
  const mcp = await connectMcp(svc.base);
  try {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    assert.equal(tools.length, 35);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, "object", tool.name);
      assert.equal(tool.outputSchema?.type, "object", tool.name);
      assert.ok(tool.description!.length > 80, `${tool.name} is described for a model`);
      assert.match(tool.description!, /Example/, `${tool.name} has an example`);
      const hints = tool.annotations!;
      assert.equal(
        hints.readOnlyHint,
        tool.name.startsWith("app_get_") ||
          tool.name === "app_describe_edit" || tool.name === "app_validate_preset",
        tool.name,
      );
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    // Deletes and panic are destructive; plain playback is not.
    for (const name of ["app_clip_edit", "app_song_edit", "app_preset_edit", "app_system"]) {
      assert.equal(byName.get(name)!.annotations!.destructiveHint, true, name);
    }
    assert.equal(byName.get("app_playback")!.annotations!.destructiveHint, false);
    // Input schemas come from the catalog's declarations (the same ranges as HTTP).
    const song = byName.get("app_song_edit")!.inputSchema as Record<string, unknown>;
    assert.match(JSON.stringify(song), /"song.set_timeline"/);
    assert.match(JSON.stringify(byName.get("app_system")!.inputSchema), /"maximum":1/);
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

Deno.test("MCP query tools answer what the HTTP routes answer", async () => {
  const svc = await startTestService();
  const mcp = await connectMcp(svc.base);
  const same = async (tool: string, args: Record<string, unknown>, path: string) => {
    const result = await mcp.call(tool, args);
    assert.equal(result.isError, undefined, `${tool}: ${result.content[0]?.text}`);
    const http = await svc.get(path);
    assert.equal(http.status, 200, path);
    assert.deepEqual(result.structuredContent, http.body, tool);
    assert.deepEqual(JSON.parse(result.content[0]!.text!), http.body, `${tool} as text`);
    return result.structuredContent;
  };
  try {
    await same("app_get_projects", {}, "/api/v1/projects");
    await same("app_get_project", { projectId: "show" }, "/api/v1/projects/show");
    await same("app_get_project_summary", {}, "/api/v1/projects/show/summary");
    await same("app_get_active_project", {}, "/api/v1/active");
    await same("app_get_playstate", { projectId: "show" }, "/api/v1/projects/show/playstate");
    await same("app_get_app_state", {}, "/api/v1/app-state");
    await same("app_get_songs", {}, "/api/v1/projects/show/songs");
    const song = await same("app_get_song", { songID: "s1" }, "/api/v1/projects/show/songs/s1");
    assert.equal(song.timeline.length, 2);
    assert.equal(song.lyrics[0].text, "first");
    await same("app_get_clips", { ids: ["c2", "c1"] }, "/api/v1/projects/show/clips?ids=c2,c1");
    const clip = await mcp.call("app_get_clip", { clipID: "c2" });
    const http = await svc.get("/api/v1/projects/show/clips?ids=c2");
    assert.deepEqual(clip.structuredContent, http.body.clips[0]);
    await same("app_get_effects", {}, "/api/v1/projects/show/effects");
    await same("app_get_visualizers", {}, "/api/v1/projects/show/visualizers");
    await same("app_get_presets", {}, "/api/v1/presets");
    await same(
      "app_get_preset",
      { kind: "effect", presetId: "fx-blur" },
      "/api/v1/presets/effect/fx-blur",
    );
    const controls = await mcp.call("app_get_preset_controls", {
      kind: "effect",
      presetId: "fx-blur",
    });
    const preset = (await svc.get("/api/v1/presets/effect/fx-blur")).body;
    assert.deepEqual(controls.structuredContent, {
      presetId: "fx-blur",
      kind: "effect",
      name: preset.name,
      parameters: preset.parameters,
    });
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

Deno.test("MCP tools that show Clips answer their thumbnails as image content", async () => {
  const svc = await startTestService();
  const mcp = await connectMcp(svc.base);
  try {
    const rgba = new Uint8Array(32 * 16 * 4).fill(200);
    const png = encodePng(32, 16, rgba);
    const imported = await mcp.call("app_file_edit", {
      contentBase64: Buffer.from(png).toString("base64"),
      name: "still.png",
    });
    const fileId = imported.structuredContent.edits[0].created.fileId;
    const added = await mcp.call("app_clip_edit", {
      edits: [{ name: "clip.add", params: { songID: "s3", fileId } }],
    });
    const clipId = added.structuredContent.edits[0].created.clipID;
    const one = await mcp.call("app_get_clip", { clipID: clipId });
    const image = one.content.find((c) => c.type === "image")!;
    assert.equal(image.mimeType, "image/jpeg");
    assert.equal(formatOf(Buffer.from(image.data!, "base64")), "jpeg");
    const song = await mcp.call("app_get_song", { songID: "s3" });
    assert.equal(song.content.filter((c) => c.type === "image").length, 1);
    const several = await mcp.call("app_get_clips", { ids: ["c7", clipId] });
    assert.equal(several.content.filter((c) => c.type === "image").length, 1);
    const without = await mcp.call("app_get_clips", { ids: [clipId], thumbnails: false });
    assert.equal(without.content.filter((c) => c.type === "image").length, 0);
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

/** Every property name of the tools' input schemas, nested ones included. */
function propertyNames(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) { for (const item of schema) propertyNames(item, out); }
  else if (typeof schema === "object" && schema !== null) {
    const properties = (schema as { properties?: Record<string, unknown> }).properties;
    for (const name of Object.keys(properties ?? {})) out.add(name);
    for (const value of Object.values(schema)) propertyNames(value, out);
  }
  return out;
}

Deno.test("MCP tools spell identifiers as the interface does; the older clipId and songId still work, marked deprecated", async () => {
  const svc = await startTestService();
  const mcp = await connectMcp(svc.base);
  try {
    const { tools } = await mcp.client.listTools();
    const names = propertyNames(tools.map((t) => t.inputSchema));
    for (const spelled of ["clipID", "songID", "controlID", "projectId"]) {
      assert.ok(names.has(spelled), `some tool takes ${spelled}`);
    }
    for (const wrong of ["clipId", "songId", "controlId", "projectID"]) {
      assert.ok(
        !names.has(wrong),
        `no tool declares ${wrong} (docs/api.md, "One spelling per name")`,
      );
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.match(byName.get("app_get_clip")!.description!, /Deprecated: "clipId"/);
    assert.match(byName.get("app_get_song")!.description!, /Deprecated: "songId"/);

    const clip = await mcp.call("app_get_clip", { clipID: "c2", thumbnails: false });
    const old = await mcp.call("app_get_clip", { clipId: "c2", thumbnails: false });
    assert.equal(old.isError, undefined, old.content[0]?.text ?? "");
    assert.deepEqual(old.structuredContent, clip.structuredContent);
    const song = await mcp.call("app_get_song", { songID: "s1", thumbnails: false });
    const oldSong = await mcp.call("app_get_song", { songId: "s1", thumbnails: false });
    assert.deepEqual(oldSong.structuredContent, song.structuredContent);
    // Both spellings at once: the older one is refused by name, not silently dropped.
    const both = await mcp.call("app_get_clip", { clipID: "c2", clipId: "c1" });
    assert.equal(both.isError, true);
    assert.match(both.content[0]!.text!, /clipId is the older spelling of clipID, also sent/);
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

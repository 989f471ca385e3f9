import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { connectMcp, type McpTestClient } from "../../../tools/testing/mcp_client.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";

// deno-lint-ignore no-explicit-any
async function ok(mcp: McpTestClient, tool: string, args: Record<string, unknown>): Promise<any> {
  const result = await mcp.call(tool, args);
  assert.equal(result.isError, undefined, `${tool}: ${result.content[0]?.text}`);
  return result.structuredContent;
}

const edits = (...list: Array<[string, Record<string, unknown>]>) => ({
  edits: list.map(([name, params]) => ({ name, params })),
});

async function withService(
  run: (svc: TestService, mcp: McpTestClient) => Promise<void>,
): Promise<void> {
  const svc = await startTestService();
  const mcp = await connectMcp(svc.base);
  try {
    await run(svc, mcp);
  } finally {
    await mcp.close();
    await svc.stop();
  }
}

Deno.test("MCP app_clip_edit adds, updates (filters, effects), duplicates, moves and deletes Clips", () =>
  withService(async (svc, mcp) => {
    const added = await ok(
      mcp,
      "app_clip_edit",
      edits(["clip.add", { songID: "s2", name: "New" }]),
    );
    const id = added.edits[0].created.clipID;
    await ok(
      mcp,
      "app_clip_edit",
      edits(
        ["clip.update", { clipID: id, options: { filters: { blur: 4 }, effects: ["e1"] } }],
        ["clip.duplicate", { clipID: "c1" }],
        ["clip.move", { clipID: "c7", songID: "s2", position: 0 }],
        ["clip.delete", { clipID: "c3" }],
      ),
    );
    const clip = (await svc.get(`/api/v1/projects/show/clips?ids=${id}`)).body.clips[0];
    assert.equal(clip.options.filters.blur, 4);
    assert.deepEqual(clip.options.effects, ["e1"]);
    const songs = (await svc.get("/api/v1/projects/show/songs")).body.songs;
    assert.deepEqual(songs[1].clipIDs.slice(0, 1), ["c7"]);
    assert.equal(songs[0].clipIDs.includes("c3"), false);
    assert.equal(songs[0].clipIDs.length, 4, "c1's copy joined, c3 left");
  }));

Deno.test("MCP app_song_edit builds a set list: songs, titles, Program Identifiers, timeline, lyrics", () =>
  withService(async (svc, mcp) => {
    const added = await ok(
      mcp,
      "app_song_edit",
      edits(["song.add", { title: "Encore", pgmId: "99" }]),
    );
    const id = added.edits[0].created.songID;
    await ok(
      mcp,
      "app_song_edit",
      edits(
        ["song.move", { songID: id, position: 0 }],
        ["song.update", { songID: "s2", title: "Two (live)", pgmId: "21" }],
        ["song.set_timeline", { songID: "s2", cues: [{ time: 1, action: "play", clipID: "c5" }] }],
        ["song.set_lyrics", { songID: "s2", lyrics: [{ time: 0, text: "hello" }] }],
        ["song.duplicate", { songID: "s3" }],
        ["song.delete", { songID: "s1" }],
      ),
    );
    const songs = (await svc.get("/api/v1/projects/show/songs")).body.songs;
    assert.deepEqual(songs.map((s: { title: string }) => s.title), [
      "Encore",
      "Two (live)",
      "Three",
      "Three copy",
    ]);
    assert.equal(songs[1].pgmId, "21");
    assert.equal(songs[1].timeline[0].clipID, "c5");
    assert.equal(songs[1].lyrics[0].text, "hello");
  }));

Deno.test("MCP app_project_edit: display, zoom, Background Clips, Controls, rename, undo and redo", () =>
  withService(async (svc, mcp) => {
    await ok(
      mcp,
      "app_project_edit",
      edits(
        ["project.set_display", { width: 1280, height: 720, backgroundColor: "#102030" }],
        ["project.set_zoom", { zoom: 2.5 }],
        ["project.set_background_clips", { clipIDs: ["c7", "cbg"] }],
        ["control.update", { controlID: "d", name: "Dimmer" }],
      ),
    );
    let project = (await svc.get("/api/v1/projects/show")).body;
    assert.equal(project.display.width, 1280);
    assert.equal(project.display.zoom, 2.5);
    assert.deepEqual(project.backgroundClips, ["c7", "cbg"]);
    assert.equal(
      project.controls.find((c: { controlID: string }) => c.controlID === "D").name,
      "Dimmer",
    );
    await ok(mcp, "app_project_edit", edits(["project.rename", { name: "Renamed" }]));
    await ok(mcp, "app_project_edit", edits(["project.undo", {}]));
    assert.equal((await svc.get("/api/v1/projects/show")).body.name, "Fixture Show");
    await ok(mcp, "app_project_edit", edits(["project.redo", {}]));
    project = (await svc.get("/api/v1/projects/show")).body;
    assert.equal(project.name, "Renamed");
  }));

Deno.test("MCP app_effect_edit and app_visualizer_edit: add, update, copy, remove", () =>
  withService(async (svc, mcp) => {
    const added = await ok(
      mcp,
      "app_effect_edit",
      edits(["effect.add", { presetID: "fx-blur", name: "Haze" }]),
    );
    const fx = added.edits[0].created.effectID;
    await ok(
      mcp,
      "app_effect_edit",
      edits(
        ["effect.update", { effectID: fx, enabled: false }],
        ["effect.copy", { effectID: fx }],
        [
          "effect.remove",
          { effectID: "e2" },
        ],
      ),
    );
    const effects = (await svc.get("/api/v1/projects/show/effects")).body.effects;
    assert.deepEqual(effects.map((e: { name: string }) => e.name), [
      "Soft Blur",
      "Haze",
      "Haze copy",
    ]);
    assert.equal(effects[1].enabled, false);
    await ok(
      mcp,
      "app_visualizer_edit",
      edits(["visualizer.copy", { visualizerID: "v1", name: "Bars wide" }], [
        "visualizer.update",
        { visualizerID: "v1", enabled: false },
      ]),
    );
    const created = await ok(
      mcp,
      "app_visualizer_edit",
      edits(["visualizer.add", { presetID: "viz-scope" }]),
    );
    await ok(
      mcp,
      "app_visualizer_edit",
      edits(["visualizer.remove", { visualizerID: created.edits[0].created.visualizerID }]),
    );
    const visualizers = (await svc.get("/api/v1/projects/show/visualizers")).body.visualizers;
    assert.deepEqual(visualizers.map((v: { name: string }) => v.name), ["Bars", "Bars wide"]);
    assert.equal(visualizers[0].enabled, false);
  }));

Deno.test("MCP app_preset_edit, app_validate_preset and app_describe_edit", () =>
  withService(async (svc, mcp) => {
    const preset = {
      kind: "effect",
      name: "Glow",
      type: "glow",
      parameters: [{ name: "amount", type: "number", min: 0, max: 1, default: 0.5 }],
    };
    assert.deepEqual(await ok(mcp, "app_validate_preset", preset), { valid: true, problems: [] });
    const bad = await ok(mcp, "app_validate_preset", {
      ...preset,
      parameters: [{ name: "amount", type: "number", min: 0, max: 1, default: 5 }],
    });
    assert.equal(bad.valid, false);
    assert.ok(bad.problems.length > 0);
    const added = await ok(mcp, "app_preset_edit", edits(["preset.add", preset]));
    const id = added.edits[0].created.presetID;
    await ok(
      mcp,
      "app_preset_edit",
      edits(["preset.update", { kind: "effect", presetID: id, name: "Glow 2" }]),
    );
    assert.equal((await svc.get(`/api/v1/presets/effect/${id}`)).body.name, "Glow 2");
    await ok(mcp, "app_preset_edit", edits(["preset.remove", { kind: "effect", presetID: id }]));
    assert.equal((await svc.get(`/api/v1/presets/effect/${id}`)).status, 404);

    const one = await ok(mcp, "app_describe_edit", { name: "clip.add" });
    assert.deepEqual(one, (await svc.get("/api/v1/edit/schema/clip.add")).body);
    const all = await ok(mcp, "app_describe_edit", {});
    const http = (await svc.get("/api/v1/edit/schema")).body.edits;
    assert.equal(all.edits.length, http.length);
    assert.equal(
      all.edits.find((e: { name: string }) => e.name === "song.add").tool,
      "app_song_edit",
    );
  }));

Deno.test("MCP app_file_edit imports from a path on the show machine and from bytes", () =>
  withService(async (svc, mcp) => {
    const dir = await Deno.makeTempDir();
    try {
      const wav = (await svc.get("/api/v1/projects/show")).body.files.length;
      await Deno.writeFile(`${dir}/still.jpg`, jpegBytes());
      const byPath = await ok(mcp, "app_file_edit", { path: `${dir}/still.jpg`, name: "Still" });
      const byBytes = await ok(mcp, "app_file_edit", {
        contentBase64: Buffer.from(jpegBytes()).toString("base64"),
        name: "bytes.jpg",
      });
      const files = (await svc.get("/api/v1/projects/show")).body.files;
      assert.equal(files.length, wav + 2);
      const ids = files.map((f: { fileId: string }) => f.fileId);
      assert.ok(ids.includes(byPath.edits[0].created.fileId));
      assert.ok(ids.includes(byBytes.edits[0].created.fileId));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }));

/** A small real JPEG (the service probes what it imports). */
function jpegBytes(): Uint8Array {
  return Uint8Array.from(atob(TINY_JPEG), (c) => c.charCodeAt(0));
}
const TINY_JPEG =
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=";

/**
 * Every operation an MCP tool reaches (`tool.reaches`, the first and those it
 * runs second) goes through `Policy.invoke`: a spy on the policy counts the
 * operations it is asked to run while each tool is called with inputs that
 * reach all of them. A tool that ran an operation itself (`operation.run`,
 * the core) would leave it uncounted and fail here; the refusals walk
 * (`tests/server/refusals_test.ts`) only sees the tool's first operation.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { encodePng } from "../../../player/media/encode.ts";
import { Policy } from "../../../server/core/mod.ts";
import { ToolTable } from "../../../server/mcp/tools.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { connectMcp } from "../../../tools/testing/mcp_client.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";

const EDIT = (name: string, params: Record<string, unknown>) => ({ edits: [{ name, params }] });

/**
 * Inputs of each tool that together reach every operation it names (the
 * fixture's Project "show", Songs s1-s3, and `clipId`, a Clip of s1 with a
 * picture, so that its thumbnail is asked for). An operation refused or
 * failing still counts: it was asked of the policy.
 */
const inputs = (clipId: string): Record<string, Record<string, unknown>[]> => ({
  app_get_projects: [{}],
  app_get_project: [{ projectId: "show" }],
  app_get_project_summary: [{ projectId: "show" }],
  app_get_active_project: [{}],
  app_get_playstate: [{ projectId: "show" }],
  app_get_app_state: [{}],
  app_get_displays: [{}],
  app_get_songs: [{ projectId: "show" }],
  app_get_song: [{ songID: "s1" }],
  app_get_clips: [{ ids: [clipId] }],
  app_get_clip: [{ clipID: clipId }],
  app_get_effects: [{ projectId: "show" }],
  app_get_visualizers: [{ projectId: "show" }],
  app_get_presets: [{}],
  app_get_preset: [{ kind: "effect", presetId: "fx-none" }],
  app_get_preset_controls: [{ kind: "effect", presetId: "fx-none" }],
  app_clip_edit: [EDIT("clip.update", { clipID: "c-none", options: {} })],
  app_song_edit: [EDIT("song.move", { songID: "s-none", position: 0 })],
  app_project_edit: [EDIT("project.undo", {})],
  app_effect_edit: [EDIT("effect.remove", { effectID: "fx-none" })],
  app_visualizer_edit: [EDIT("visualizer.remove", { visualizerID: "viz-none" })],
  app_preset_edit: [EDIT("preset.remove", { kind: "effect", presetID: "fx-none" })],
  app_file_edit: [{ path: "/nonexistent/intro.mp4" }, { contentBase64: "AAAA", name: "x.png" }],
  app_describe_edit: [{ name: "clip.update" }, {}],
  app_validate_preset: [{ kind: "effect", name: "Glow", type: "glow", parameters: [] }],
  app_playback: [{ action: "PLAY_IN" }],
  app_system: [{ action: "MUTE_TOGGLE" }],
  app_open_editor: [{ action: "OPEN_EDITOR", kind: "effect", presetID: "fx-none" }],
  app_control: [{ action: "SET_CONTROL", controlID: "A", value: 0.5 }, { action: "list" }],
  app_project_select: [{ projectId: "show" }],
  app_project_export: [{ projectId: "show", path: "/nonexistent/show.cueport.zip" }],
  app_project_import: [{ path: "/nonexistent/show.cueport.zip" }],
  app_get_output_frame: [{ size: 64 }],
  app_get_midi: [{}],
  // Refused by its input (a learn would wait for a message): asked of the policy all the same.
  app_midi_learn: [{ action: "not an action" }],
});

/** Adds a Clip with a picture to s1: its id. */
async function clipWithPicture(mcp: Awaited<ReturnType<typeof connectMcp>>): Promise<string> {
  const png = encodePng(8, 8, new Uint8Array(8 * 8 * 4).fill(200));
  const imported = await mcp.call("app_file_edit", {
    contentBase64: Buffer.from(png).toString("base64"),
    name: "still.png",
  });
  const fileId = imported.structuredContent.edits[0].created.fileId;
  const added = await mcp.call("app_clip_edit", {
    edits: [{ name: "clip.add", params: { songID: "s1", fileId } }],
  });
  return added.structuredContent.edits[0].created.clipID;
}

Deno.test("MCP: every operation a tool reaches, first or second, is run through Policy.invoke", async () => {
  const tools = new ToolTable({ maxUploadBytes: 1 << 20 }).tools;
  const invoked = new Map<string, number>();
  const invoke = Policy.prototype.invoke;
  Policy.prototype.invoke = function (operation, ...rest) {
    invoked.set(operation.name, (invoked.get(operation.name) ?? 0) + 1);
    return invoke.call(this, operation, ...rest);
  };
  const svc = await startTestService();
  const mcp = await connectMcp(svc.base);
  try {
    const INPUTS = inputs(await clipWithPicture(mcp));
    assert.deepEqual(
      tools.map((t) => t.name).filter((name) => !(name in INPUTS)),
      [],
      "every tool has inputs here",
    );
    const missed: string[] = [];
    for (const tool of tools) {
      invoked.clear();
      for (const args of INPUTS[tool.name]!) await mcp.call(tool.name, args);
      for (const operation of tool.reaches) {
        if (!invoked.has(operation.name)) missed.push(`${tool.name} -> ${operation.name}`);
      }
    }
    assert.deepEqual(missed, [], "operations a tool reached without Policy.invoke");
  } finally {
    Policy.prototype.invoke = invoke;
    await mcp.close();
    await svc.stop();
  }
});

Deno.test("MCP: an operation a tool runs second is refused to a grant lacking its scope", async () => {
  // app_control needs `control`; its list reads the Project and the play state (`view`).
  const svc = await startTestService();
  const { otp } = (await svc.post("/api/v1/pair/code", {})).body;
  const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
    body: { otp, deviceName: "control only", scopes: ["control"] },
  });
  const mcp = await connectMcp(svc.base, { token: paired.body.token, localAddress: "127.0.0.2" });
  try {
    const refused = await mcp.callError("app_control", { action: "list" });
    assert.equal(refused.code, "INSUFFICIENT_SCOPE");
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

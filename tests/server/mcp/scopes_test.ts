import assert from "node:assert/strict";
import { TOOL_NAMES } from "../../../server/mcp/tools.ts";
import { connectMcp } from "../../../tools/testing/mcp_client.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";

async function pairRemote(svc: TestService, scopes: string[]): Promise<string> {
  const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
  const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
    body: { otp, deviceName: `Assistant ${scopes.join("+")}`, scopes },
  });
  assert.equal(paired.status, 200);
  return paired.body.token;
}

Deno.test("MCP scopes: a remote view token lists only reads and is refused the rest", async () => {
  const svc = await startTestService();
  const token = await pairRemote(svc, ["view"]);
  const mcp = await connectMcp(svc.base, { token, localAddress: "127.0.0.2" });
  try {
    const names = (await mcp.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("app_get_projects"));
    assert.ok(names.includes("app_describe_edit"));
    for (const hidden of ["app_playback", "app_system", "app_control", "app_clip_edit"]) {
      assert.equal(names.includes(hidden), false, hidden);
    }
    assert.equal(names.every((n) => n.startsWith("app_get_") || n === "app_describe_edit"), true);
    const songs = await mcp.call("app_get_songs", {});
    assert.equal(songs.structuredContent.songs.length, 3);

    const refused = await mcp.callError("app_system", { action: "MUTE_TOGGLE" });
    assert.equal(refused.code, "INSUFFICIENT_SCOPE");
    assert.match(refused.message, /"control" scope/);
    assert.match(refused.hint, /pair the device again/);
    assert.equal((await svc.get("/api/v1/app-state")).body.muted, false);
    const edit = await mcp.callError("app_song_edit", {
      edits: [{ name: "song.add", params: { title: "x" } }],
    });
    assert.equal(edit.code, "INSUFFICIENT_SCOPE");
    assert.equal((await svc.get("/api/v1/projects/show/songs")).body.songs.length, 3);
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

Deno.test("MCP scopes: view+control may run actions but not edits; a path import stays local", async () => {
  const svc = await startTestService();
  const controlToken = await pairRemote(svc, ["view", "control"]);
  const editToken = await pairRemote(svc, ["view", "control", "edit"]);
  const control = await connectMcp(svc.base, { token: controlToken, localAddress: "127.0.0.2" });
  const editor = await connectMcp(svc.base, { token: editToken, localAddress: "127.0.0.2" });
  try {
    const names = (await control.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("app_playback"));
    assert.equal(names.some((n) => n.endsWith("_edit") && n !== "app_describe_edit"), false);
    const muted = await control.call("app_system", { action: "MUTE_TOGGLE" });
    assert.equal(muted.isError, undefined);
    assert.equal((await svc.get("/api/v1/app-state")).body.muted, true);
    const refused = await control.callError("app_project_edit", {
      edits: [{ name: "project.rename", params: { name: "x" } }],
    });
    assert.equal(refused.code, "INSUFFICIENT_SCOPE");

    // A remote device gets every tool but the two that name paths on the show machine.
    const remote = (await editor.client.listTools()).tools.map((t) => t.name).sort();
    const pathOnly = ["app_project_export", "app_project_import"];
    assert.deepEqual(remote, TOOL_NAMES.filter((n) => !pathOnly.includes(n)).sort());
    const local = await editor.callError("app_file_edit", { path: "/etc/hostname" });
    assert.equal(local.code, "LOCAL_ONLY");
    assert.match(local.hint, /contentBase64/);
  } finally {
    await control.close();
    await editor.close();
    await svc.stop();
  }
});

Deno.test("MCP revocation: a revoked device's next request is refused (401)", async () => {
  const svc = await startTestService();
  const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
  const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
    body: { otp, deviceName: "Assistant" },
  });
  const mcp = await connectMcp(svc.base, { token: paired.body.token, localAddress: "127.0.0.2" });
  try {
    await svc.get(`/api/v1/devices/${paired.body.deviceId}`, { method: "DELETE" });
    await assert.rejects(
      () => mcp.client.listTools(),
      (e: Error & { code?: number }) => e.code === 401 && /revoked/.test(e.message),
    );
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

Deno.test("MCP rate limit: each tools/call of a batch takes from the address's one budget", async () => {
  const svc = await startTestService({ httpBurst: 10, httpRatePerSecond: 1 });
  const port = svc.service.ports.http;
  try {
    const token = await pairRemote(svc, ["view"]);
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    };
    const init = await remoteRequest(port, "POST", "/mcp", {
      headers,
      body: {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-03-26",
          capabilities: {},
          clientInfo: { name: "r", version: "1" },
        },
      },
    });
    const session = { ...headers, "mcp-session-id": String(init.headers["mcp-session-id"]) };
    await remoteRequest(port, "POST", "/mcp", {
      headers: session,
      body: { jsonrpc: "2.0", method: "notifications/initialized" },
    });
    const batch = Array.from({ length: 20 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "app_get_app_state", arguments: {} },
    }));
    const answer = await remoteRequest(port, "POST", "/mcp", { headers: session, body: batch });
    assert.equal(answer.status, 200);
    const limited = answer.body.filter((
      r: { result: { isError?: boolean; content: Array<{ text: string }> } },
    ) => r.result.isError && JSON.parse(r.result.content[0]!.text).error.code === "RATE_LIMITED");
    assert.ok(limited.length >= 10, `${limited.length} of 20 refused`);
  } finally {
    await svc.stop();
  }
});

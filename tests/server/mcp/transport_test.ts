import assert from "node:assert/strict";
import { TOOL_NAMES } from "../../../server/mcp/tools.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { connectMcp, type McpTestClient } from "../../../tools/testing/mcp_client.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};
const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

Deno.test("MCP GET stream: a subscribed Song's change reaches the client as a server message", async () => {
  const svc = await startTestService();
  const mcp = await connectMcp(svc.base);
  try {
    const updated: string[] = [];
    let listChanged = 0;
    mcp.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    mcp.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged++;
    });
    const { resources } = await mcp.client.listResources();
    const uri = "app://projects/show/songs/s2";
    assert.ok(resources.some((r) => r.uri === uri));
    const read = await mcp.client.readResource({ uri });
    const text = (read.contents[0] as { text: string }).text;
    assert.deepEqual(JSON.parse(text), (await svc.get("/api/v1/projects/show/songs/s2")).body);
    await mcp.client.subscribeResource({ uri });
    await mcp.streamOpen;
    // A change made over HTTP, not by this session: only the GET stream can carry the news.
    await svc.post("/api/v1/edit", {
      name: "song.update",
      params: { songID: "s2", title: "Deux" },
    });
    await until("the resource update", () => updated.includes(uri));
    await svc.post("/api/v1/edit", { name: "song.add", params: { title: "New" } });
    await until("the list change", () => listChanged > 0);
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

Deno.test("MCP DELETE ends the session; its id is then unknown (404)", async () => {
  const svc = await startTestService();
  const mcp = await connectMcp(svc.base);
  try {
    const id = mcp.transport.sessionId!;
    assert.match(id, /^[A-Za-z0-9_-]{43}$/, "32 random bytes, base64url");
    assert.equal(svc.service.mcp.sessionCount, 1);
    await mcp.transport.terminateSession();
    assert.equal(svc.service.mcp.sessionCount, 0);
    const res = await fetch(`${svc.base}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": id },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assert.equal(res.status, 404);
    await res.body?.cancel();
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

Deno.test("MCP session ids are random and bound to the device that opened them", async () => {
  const svc = await startTestService();
  try {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${svc.base}/mcp`, {
        method: "POST",
        headers: MCP_HEADERS,
        body: JSON.stringify(INIT),
      });
      assert.equal(res.status, 200);
      ids.add(res.headers.get("mcp-session-id")!);
      await res.body?.cancel();
    }
    assert.equal(ids.size, 5);
    // A paired remote device cannot use a session of the local client.
    const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
    const token = (await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
      body: { otp, deviceName: "Laptop" },
    })).body.token;
    const stolen = await remoteRequest(svc.service.ports.http, "POST", "/mcp", {
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}`, "mcp-session-id": [...ids][0]! },
      body: { jsonrpc: "2.0", id: 2, method: "tools/list" },
    });
    assert.equal(stolen.status, 404);
  } finally {
    await svc.stop();
  }
});

Deno.test("MCP refusals: 401 with WWW-Authenticate, bad Origin 403, unsupported version 400, no session 400", async () => {
  const svc = await startTestService();
  const port = svc.service.ports.http;
  try {
    const anonymous = await remoteRequest(port, "POST", "/mcp", {
      headers: MCP_HEADERS,
      body: INIT,
    });
    assert.equal(anonymous.status, 401);
    assert.match(String(anonymous.headers["www-authenticate"]), /^Bearer/);
    assert.equal(anonymous.body.error.data.code, "AUTHENTICATION_FAILED");
    const badToken = await remoteRequest(port, "GET", "/mcp", {
      headers: { accept: "text/event-stream", authorization: "Bearer nope" },
    });
    assert.equal(badToken.status, 401);
    assert.match(String(badToken.headers["www-authenticate"]), /^Bearer/);

    const origin = await fetch(`${svc.base}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, origin: "http://evil.example" },
      body: JSON.stringify(INIT),
    });
    assert.equal(origin.status, 403);
    assert.equal((await origin.json()).error.code, "ORIGIN_NOT_ALLOWED");
    const host = await remoteRequest(port, "POST", "/mcp", {
      headers: { ...MCP_HEADERS, host: "evil.example" },
      body: INIT,
      localAddress: "127.0.0.1",
    });
    assert.equal(host.status, 403);
    assert.equal(host.body.error.code, "HOST_NOT_ALLOWED");

    const mcp = await connectMcp(svc.base);
    try {
      const version = await fetch(`${svc.base}/mcp`, {
        method: "POST",
        headers: {
          ...MCP_HEADERS,
          "mcp-session-id": mcp.transport.sessionId!,
          "mcp-protocol-version": "1999-01-01",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
      assert.equal(version.status, 400);
      assert.match((await version.json()).error.message, /Unsupported protocol version/);
    } finally {
      await mcp.close();
    }
    const noSession = await fetch(`${svc.base}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assert.equal(noSession.status, 400);
    await noSession.body?.cancel();
    const tooLarge = await fetch(`${svc.base}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ ...INIT, pad: "x".repeat(2 * 1024 * 1024) }),
    });
    assert.equal(tooLarge.status, 413);
    await tooLarge.body?.cancel();
  } finally {
    await svc.stop();
  }
});

Deno.test("MCP discovery document: the server card and the SEP-1649 fields, no secret", async () => {
  const svc = await startTestService();
  try {
    const res = await svc.get("/.well-known/mcp.json");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    const doc = res.body;
    assert.equal(doc.remotes[0].type, "streamable-http");
    assert.equal(doc.remotes[0].url, `${svc.base}/mcp`);
    assert.ok(doc.remotes[0].supportedProtocolVersions.includes("2025-06-18"));
    assert.match(doc.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    assert.ok(doc.description.length <= 100);
    assert.equal(doc.capabilities.resources.subscribe, true);
    assert.equal(doc.transports[0].url, `${svc.base}/mcp`);
    assert.match(
      doc._meta["local.app/tools"],
      new RegExp(`^${TOOL_NAMES.length} tools named app_\\*`),
    );
    const card = await svc.get("/.well-known/mcp/server-card.json");
    assert.equal(card.headers.get("content-type"), "application/mcp-server-card+json");
    assert.deepEqual(card.body, doc);
    const text = JSON.stringify(doc);
    assert.doesNotMatch(text, /cueport-operator-|eyJ/, "no credential");
  } finally {
    await svc.stop();
  }
});

Deno.test("MCP sessions are bounded: the least recently used one is closed for a new one", async () => {
  const svc = await startTestService({ mcpMaxSessions: 2 });
  const clients: McpTestClient[] = [];
  try {
    for (let i = 0; i < 3; i++) clients.push(await connectMcp(svc.base));
    assert.equal(svc.service.mcp.sessionCount, 2);
    await assert.rejects(
      () => clients[0]!.client.listTools(),
      (e: Error & { code?: number }) => e.code === 404,
    );
    assert.equal((await clients[2]!.client.listTools()).tools.length, TOOL_NAMES.length);
  } finally {
    for (const c of clients) await c.close();
    await svc.stop();
  }
});

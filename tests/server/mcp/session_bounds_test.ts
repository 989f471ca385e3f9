import assert from "node:assert/strict";
import { TOOL_NAMES } from "../../../server/mcp/tools.ts";
import { connectMcp } from "../../../tools/testing/mcp_client.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { initialize } from "./_raw.ts";

async function pairRemote(svc: TestService, scopes: string[], name: string): Promise<string> {
  const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
  const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
    body: { otp, deviceName: name, scopes },
  });
  assert.equal(paired.status, 200);
  return paired.body.token;
}

Deno.test("MCP sessions per device: a view-only device's ninth is refused (429), the operator's session keeps working", async () => {
  const svc = await startTestService();
  const operator = await connectMcp(svc.base);
  try {
    const token = await pairRemote(svc, ["view"], "Viewer");
    const answers = [];
    for (let i = 0; i < 40; i++) {
      answers.push(await initialize(svc.base, { token, localAddress: "127.0.0.2" }));
    }
    const opened = answers.filter((a) => a.status === 200);
    assert.equal(opened.length, 8);
    const refused = answers.find((a) => a.status !== 200)!;
    assert.equal(refused.status, 429);
    assert.equal(refused.sessionId, null);
    assert.match(String(refused.headers["retry-after"]), /^\d+$/);
    assert.equal(refused.body.jsonrpc, "2.0");
    assert.equal(refused.body.error.data.code, "RATE_LIMITED");
    assert.match(refused.body.error.message, /at most 8 MCP sessions/);
    assert.equal(svc.service.mcp.sessionCount, 9);
    // The operator's session was never closed for them.
    assert.equal((await operator.client.listTools()).tools.length, TOOL_NAMES.length);
    // Another device has a bound of its own.
    const other = await pairRemote(svc, ["view"], "Other");
    assert.equal(
      (await initialize(svc.base, { token: other, localAddress: "127.0.0.3" })).status,
      200,
    );
  } finally {
    await operator.close();
    await svc.stop();
  }
});

Deno.test("MCP sessions: remote devices fill a pool of their own; local sessions are never closed for them", async () => {
  const svc = await startTestService({ mcpMaxSessions: 2 });
  const operator = await connectMcp(svc.base);
  try {
    for (const [i, address] of ["127.0.0.2", "127.0.0.3", "127.0.0.4"].entries()) {
      const token = await pairRemote(svc, ["view", "control"], `Device ${i}`);
      const answer = await initialize(svc.base, { token, localAddress: address });
      assert.equal(answer.status, i < 2 ? 200 : 429, `device ${i}`);
    }
    assert.equal((await operator.client.listTools()).tools.length, TOOL_NAMES.length);
  } finally {
    await operator.close();
    await svc.stop();
  }
});

Deno.test("MCP sessions per device follow the mcpMaxSessionsPerDevice setting", async () => {
  const svc = await startTestService({ mcpMaxSessionsPerDevice: 2 });
  try {
    const token = await pairRemote(svc, ["view"], "Viewer");
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await initialize(svc.base, { token, localAddress: "127.0.0.2" })).status);
    }
    assert.deepEqual(statuses, [200, 200, 429]);
  } finally {
    await svc.stop();
  }
});

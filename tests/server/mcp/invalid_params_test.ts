import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { openRawSession } from "./_raw.ts";

Deno.test("MCP requests of the wrong shape are -32602 naming the field, never -32603 or a raw dump", async () => {
  const svc = await startTestService();
  try {
    const session = await openRawSession(svc.base);
    const call = (params: unknown) =>
      session.request({ jsonrpc: "2.0", id: 7, method: "tools/call", params });
    const cases: Array<[unknown, RegExp]> = [
      [
        { name: "app_get_songs", arguments: [] },
        /^Invalid params\.arguments: expected an object, got an array$/,
      ],
      [
        { name: "app_get_songs", arguments: "x" },
        /^Invalid params\.arguments: expected an object, got a string$/,
      ],
      [{ name: 5, arguments: {} }, /^Invalid params\.name: expected a string, got a number$/],
      [{ arguments: {} }, /^Invalid params\.name: is required$/],
    ];
    for (const [params, message] of cases) {
      const answer = await call(params);
      assert.equal(answer.status, 200, JSON.stringify(params));
      assert.equal(answer.body.id, 7);
      assert.equal(answer.body.error.code, -32602, JSON.stringify(answer.body));
      assert.match(answer.body.error.message, message);
      assert.equal(answer.body.error.data.code, "INVALID_MESSAGE");
      assert.equal(typeof answer.body.error.data.details.field, "string");
    }
    const read = await session.request({
      jsonrpc: "2.0",
      id: 8,
      method: "resources/read",
      params: { uri: ["app://projects/show"] },
    });
    assert.equal(read.body.error.code, -32602);
    assert.match(read.body.error.message, /^Invalid params\.uri: expected a string, got an array$/);
    // In a batch, the bad request is answered on its own and the good one still runs.
    const batch = await session.request([
      {
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "app_get_songs", arguments: [1] },
      },
      {
        jsonrpc: "2.0",
        id: 10,
        method: "tools/call",
        params: { name: "app_get_songs", arguments: {} },
      },
    ]);
    assert.equal(batch.status, 200);
    type Reply = {
      id: number;
      error?: { code: number };
      result?: { structuredContent: { songs: unknown[] } };
    };
    const byId = new Map((batch.body as Reply[]).map((m) => [m.id, m]));
    assert.equal(byId.get(9)?.error?.code, -32602);
    assert.equal(byId.get(10)?.result?.structuredContent.songs.length, 3);
    await session.close();
  } finally {
    await svc.stop();
  }
});

Deno.test("a session's JSON-RPC errors say the error's own words, without the SDK's 'MCP error <code>:' before them", async () => {
  const svc = await startTestService();
  try {
    const session = await openRawSession(svc.base);
    const cases: Array<[string, unknown, number, RegExp]> = [
      // Thrown by the catalog (the core's NOT_FOUND, -32002 by the MCP spec).
      ["resources/read", { uri: "app://projects/nope" }, -32002, /^Project "nope" does not exist$/],
      // Thrown by the session itself.
      ["tools/call", { name: "app_nope", arguments: {} }, -32602, /^Unknown tool "app_nope"/],
    ];
    for (const [method, params, code, message] of cases) {
      const answer = await session.request({ jsonrpc: "2.0", id: 11, method, params });
      assert.equal(answer.body.error?.code, code, JSON.stringify(answer.body));
      assert.match(answer.body.error.message, message, JSON.stringify(answer.body.error));
    }
    await session.close();
  } finally {
    await svc.stop();
  }
});

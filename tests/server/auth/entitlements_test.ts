import assert from "node:assert/strict";
import { startTestService } from "../../_helpers/service.ts";
import { TestSocket } from "../../_helpers/ws_client.ts";

Deno.test("a plan without API access: 403 on every API route, /health open, WebSocket auth refused", async () => {
  const svc = await startTestService({ plan: "free" });
  try {
    for (const path of ["/api/v1/projects", "/api/v1/info", "/api/v1/app-state"]) {
      const res = await svc.get(path);
      assert.equal(res.status, 403, path);
      assert.equal(res.body.error.code, "API_ACCESS_DENIED");
    }
    assert.equal((await svc.post("/api/v1/action", { name: "PLAY_IN" })).status, 403);
    assert.equal((await svc.post("/api/v1/pair/code", {})).status, 403);
    assert.equal((await svc.get("/health")).status, 200);
    const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
    await ws.take();
    const auth = await ws.auth();
    assert.equal(auth.error.code, "API_ACCESS_DENIED");
    assert.match(auth.error.message, /plan does not include API access/);
    await ws.close();
  } finally {
    await svc.stop();
  }
});

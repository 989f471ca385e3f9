import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";
import { startServiceProcess } from "../../../tools/testing/service_process.ts";
import { until } from "../../../tools/testing/until.ts";

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
    // It names the setting: a plan set by mistake is found from the refusal alone.
    assert.match(auth.error.message, /plan does not include API access.*setting plan: --plan pro/);
    await ws.close();
  } finally {
    await svc.stop();
  }
});

Deno.test("a plan without API access is said once in the log as the player starts, naming the setting", async () => {
  const svc = await startServiceProcess(["--plan", "free", "--log-level", "warn"]);
  try {
    await until(
      "the warning",
      () => /WARN +The plan does not include API access/.test(svc.stderr()),
    );
    assert.match(svc.stderr(), /setting plan: --plan pro or CUEPORT_PLAN=pro/);
  } finally {
    assert.equal(await svc.stop(), 0);
  }
});

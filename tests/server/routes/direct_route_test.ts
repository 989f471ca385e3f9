import assert from "node:assert/strict";
import { startTestService } from "../../_helpers/service.ts";

/**
 * `POST /api/v1/action` is served without Hono's router (`DIRECT_ROUTES` in
 * server/routes/mod.ts); the same route reached through Hono (a percent-escaped path, which
 * Hono decodes) must answer every request the same way: status, headers that matter, body.
 */
Deno.test("POST /api/v1/action served directly answers as the same route through Hono", async () => {
  const svc = await startTestService({ corsOrigins: ["http://console.local"] });
  const send = async (path: string, body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(svc.base + path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });
    return {
      status: res.status,
      cors: res.headers.get("access-control-allow-origin"),
      close: res.headers.get("connection"),
      body: await res.text(),
    };
  };
  const control = JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] });
  const cases: Array<[string, string, Record<string, string>?]> = [
    ["a valid action", control],
    ["with an allowed Origin", control, { origin: "http://console.local" }],
    ["with a retry key", control, { "idempotency-key": "k-1" }],
    ["an unknown action", JSON.stringify({ name: "NOPE", params: [] })],
    ["bad params", JSON.stringify({ name: "SET_CONTROL", params: ["A", "loud"] })],
    ["no JSON", "{"],
    ["a body over the limit", JSON.stringify({ name: "PANIC", pad: "x".repeat(2_000_000) })],
  ];
  const runAction = svc.service.core.runAction.bind(svc.service.core);
  try {
    for (const [what, body, headers] of cases) {
      const direct = await send("/api/v1/action", body, headers);
      const hono = await send("/api/v1/%61ction", body, headers);
      assert.deepEqual(direct, hono, what);
    }
    // A fault of the service: 500 either way, worded the same.
    svc.service.core.runAction = () => {
      throw new Error("boom");
    };
    const direct = await send("/api/v1/action", control);
    assert.equal(direct.status, 500);
    assert.deepEqual(direct, await send("/api/v1/%61ction", control));
    svc.service.core.runAction = runAction;
    // Other methods and forms of the path are Hono's: 405 with Allow, 404.
    const get = await fetch(svc.base + "/api/v1/action");
    await get.body?.cancel();
    assert.equal(get.status, 405);
    assert.match(get.headers.get("allow") ?? "", /POST/);
    assert.equal((await send("/api/v1/action/extra", control)).status, 404);
  } finally {
    svc.service.core.runAction = runAction;
    await svc.stop();
  }
});

Deno.test("POST /api/v1/action: a short body is parsed whole (Request.json); blank, odd or cut short it is refused as before", async () => {
  const svc = await startTestService();
  const send = async (body: string) => {
    const res = await fetch(svc.base + "/api/v1/action", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return { status: res.status, body: await res.json() };
  };
  try {
    const ok = await send(JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.25] }));
    assert.equal(ok.status, 200);
    assert.equal(ok.body.applied, true);
    // Refused 400 INVALID_MESSAGE as before; a blank one was read as {} and refused for its name,
    // it is now refused as no JSON.
    for (const body of ["", " ", "\n\t ", "{", '{"name":', "null", "5", "[]", "{}"]) {
      const refused = await send(body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.body.error.code, "INVALID_MESSAGE", JSON.stringify(body));
    }
    assert.match((await send(" ")).body.error.message, /not valid JSON/);
    // Over the short bound (128 bytes) the text path reads it: the same answer.
    const long = await send(
      JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] }) + " ".repeat(200),
    );
    assert.equal(long.status, 200);
  } finally {
    await svc.stop();
  }
});

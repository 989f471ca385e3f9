import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { DIRECT_ROUTES, DirectRoutes } from "../../../server/routes/direct.ts";

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

Deno.test("GET /api/v1/app-state and /api/v1/projects/:projectId served directly answer as through Hono", async () => {
  const svc = await startTestService({ corsOrigins: ["http://console.local"] });
  const get = async (path: string, headers: Record<string, string> = {}, method = "GET") => {
    const res = await fetch(svc.base + path, { method, headers });
    const body = await res.text();
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      cors: res.headers.get("access-control-allow-origin"),
      // The app state's clock moves between two reads: compared without it.
      body: body.replace(/"(now|serverTime|uptimeSeconds|time)":[0-9.eE+-]+/g, '"$1":0'),
    };
  };
  // Each direct path, and the same path percent-escaped, which only Hono's router decodes.
  const cases: Array<[string, string, string, Record<string, string>?]> = [
    ["the app state", "/api/v1/app-state", "/api/v1/%61pp-state"],
    ["a Project", "/api/v1/projects/show", "/api/v1/projects/%73how"],
    ["with an allowed Origin", "/api/v1/projects/show", "/api/v1/projects/%73how", {
      origin: "http://console.local",
    }],
    ["an unknown Project", "/api/v1/projects/nope", "/api/v1/projects/%6Eope"],
  ];
  try {
    for (const [what, direct, hono, headers] of cases) {
      const a = await get(direct, headers);
      assert.ok(a.status === 200 || what === "an unknown Project", `${what}: ${a.status}`);
      assert.deepEqual(a, await get(hono, headers), what);
    }
    assert.equal((await get("/api/v1/projects/nope")).status, 404);
    // The forms a direct route does not take are Hono's, as before: a trailing slash, HEAD, a
    // deeper path, another method.
    assert.notEqual((await get("/api/v1/projects/show/")).status, 200); // Hono's 405 with Allow
    const head = await fetch(svc.base + "/api/v1/projects/show", { method: "HEAD" });
    await head.body?.cancel();
    assert.equal(head.status, 200);
    assert.equal((await get("/api/v1/projects/show/songs")).status, 200);
    const post = await get("/api/v1/app-state", {}, "POST");
    assert.equal(post.status, 405);
  } finally {
    await svc.stop();
  }
});

Deno.test("DirectRoutes matches a path exactly or by its last parameter, and nothing else", () => {
  const a = () => new Response("a"), b = () => new Response("b");
  const routes = new DirectRoutes();
  routes.set("GET", "/api/v1/app-state", a);
  routes.set("GET", "/api/v1/projects/:projectId", b);
  assert.equal(routes.size, 2);
  assert.deepEqual(routes.match("GET", "/api/v1/app-state"), { handler: a, params: {} });
  assert.deepEqual(routes.match("GET", "/api/v1/projects/demo"), {
    handler: b,
    params: { projectId: "demo" },
  });
  for (
    const [method, path] of [
      ["POST", "/api/v1/app-state"],
      ["GET", "/api/v1/app-state/"],
      ["GET", "/api/v1/projects/"],
      ["GET", "/api/v1/projects/demo/"],
      ["GET", "/api/v1/projects/demo/songs"],
      ["HEAD", "/api/v1/projects/demo"],
    ]
  ) assert.equal(routes.match(method!, path!), undefined, `${method} ${path}`);
  assert.throws(() => routes.set("GET", "/api/v1/projects/:projectId/songs", a), /last segment/);
  // The reads clients poll are direct, beside the action.
  for (const route of ["GET /api/v1/app-state", "GET /api/v1/projects/:projectId"]) {
    assert.ok(DIRECT_ROUTES.includes(route), route);
  }
});

Deno.test("DirectRoutes keeps a parameter route's match for its path, up to a bound, frozen", () => {
  const b = () => new Response("b");
  const routes = new DirectRoutes();
  routes.set("GET", "/api/v1/projects/:projectId", b);
  const first = routes.match("GET", "/api/v1/projects/demo")!;
  assert.equal(routes.match("GET", "/api/v1/projects/demo"), first); // no allocation again
  assert.ok(Object.isFrozen(first.params));
  assert.deepEqual(routes.match("GET", "/api/v1/projects/other")!.params, { projectId: "other" });
  // A scan of many ids churns the kept matches, each still answered right.
  for (let i = 0; i < 500; i++) {
    assert.deepEqual(routes.match("GET", `/api/v1/projects/p${i}`)!.params, { projectId: `p${i}` });
  }
  assert.deepEqual(routes.match("GET", "/api/v1/projects/demo")!.params, { projectId: "demo" });
  assert.equal(routes.match("GET", "/api/v1/projects/demo/"), undefined);
});

Deno.test("DirectRoutes keeps at most 64 matched paths a method: the 65th drops the kept ones", () => {
  const routes = new DirectRoutes();
  routes.set("GET", "/api/v1/projects/:projectId", () => new Response("b"));
  const first = routes.match("GET", "/api/v1/projects/demo")!;
  for (let i = 0; i < 63; i++) routes.match("GET", `/api/v1/projects/p${i}`);
  // 64 paths kept, the first among them.
  assert.equal(routes.match("GET", "/api/v1/projects/demo"), first);
  routes.match("GET", "/api/v1/projects/one-more");
  const again = routes.match("GET", "/api/v1/projects/demo")!;
  assert.notEqual(again, first);
  assert.deepEqual(again.params, { projectId: "demo" });
});

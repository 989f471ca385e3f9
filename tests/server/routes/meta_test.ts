import assert from "node:assert/strict";
import { Hono } from "hono";
import { ACTIONS } from "../../../protocol/actions.ts";
import { allRoutes } from "../../../server/routes/mod.ts";
import { isStableAnswer } from "../../../server/core/mod.ts";
import { errorAnswer } from "../../../server/net/http_error.ts";
import http from "node:http";
import { startTestService } from "../../../tools/testing/service.ts";

/** A GET from 127.0.0.2: a remote device, as far as the service can tell. */
function remoteGet(port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.get(
      { host: "127.0.0.1", port, path, localAddress: "127.0.0.2", headers },
      (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
  });
}

/** Every HTTP route of the 6.0 table (spec section 4.1) this issue serves. */
const SPEC_ROUTES = [
  "GET /health",
  "GET /api/v1/info",
  "GET /api/v1/projects",
  "GET /api/v1/projects/:projectId",
  "GET /api/v1/projects/:projectId/summary",
  "GET /api/v1/projects/:projectId/playstate",
  "GET /api/v1/active",
  "GET /api/v1/app-state",
  "GET /api/v1/projects/:projectId/songs",
  "GET /api/v1/projects/:projectId/songs/:songId",
  "GET /api/v1/projects/:projectId/clips",
  "GET /api/v1/projects/:projectId/effects",
  "GET /api/v1/projects/:projectId/visualizers",
  "GET /api/v1/presets",
  "GET /api/v1/presets/:kind/:id",
  "GET /api/v1/cameras",
  "POST /api/v1/action",
  "POST /api/v1/refresh",
];

Deno.test("HTTP meta routes, errors and CORS", async (t) => {
  const svc = await startTestService({ corsOrigins: ["http://console.local"] });
  try {
    await t.step("GET /health needs nothing and says whether the player is ready", async () => {
      const { status, body } = await svc.get("/health");
      assert.equal(status, 200);
      assert.deepEqual([body.status, body.ready, body.player.name], ["ok", true, "cueport-player"]);
    });

    await t.step(
      "GET /api/v1/info maps every endpoint, generated from the route table",
      async () => {
        const { body } = await svc.get("/api/v1/info");
        assert.equal(body.apiVersion, "6.0");
        assert.deepEqual(body.ports, svc.service.ports);
        const listed = body.endpoints.map((e: { method: string; path: string }) =>
          `${e.method} ${e.path}`
        );
        const table = allRoutes({
          version: "x",
          startedAt: 0,
          ports: () => svc.service.ports,
          clients: () => ({ websocket: 0, mcp: 0, osc: 0 }),
        })
          .map((r) => `${r.method} ${r.path}`);
        assert.deepEqual(listed, table);
        for (const route of SPEC_ROUTES) assert.ok(listed.includes(route), route);
        const health = body.endpoints.find((e: { path: string }) => e.path === "/health");
        assert.equal(health.auth, false);
      },
    );

    await t.step("GET /api/v1/openapi.json documents every route and every action", async () => {
      const { body } = await svc.get("/api/v1/openapi.json");
      assert.equal(body.openapi, "3.1.0");
      assert.equal(body.info.version, "6.0");
      for (const route of SPEC_ROUTES) {
        const [method, path] = route.split(" ") as [string, string];
        const openPath = path.replace(/:([A-Za-z]+)/g, "{$1}");
        assert.ok(body.paths[openPath]?.[method.toLowerCase()], route);
      }
      const oneOf = body.components.schemas.Action.oneOf;
      assert.deepEqual(oneOf.map((s: { title: string }) => s.title), ACTIONS.map((a) => a.name));
      const seek = oneOf.find((s: { title: string }) => s.title === "SEEK_CLIP_IN");
      assert.deepEqual(seek.properties.params.prefixItems.map((p: { title: string }) => p.title), [
        "clipID",
        "percent",
      ]);
      assert.equal(seek.properties.params.minItems, 2);
      const body400 = body.components.schemas.ActionBody;
      assert.deepEqual(body400.required, ["name"]);
      assert.equal(
        body400.properties.velocity.anyOf?.[0]?.maximum ?? body400.properties.velocity.maximum,
        127,
      );
      const clips = body.paths["/api/v1/projects/{projectId}/clips"].get;
      assert.deepEqual(
        clips.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required]),
        [
          ["projectId", true],
          ["ids", true],
        ],
      );
      assert.ok(
        body.paths["/api/v1/projects/{projectId}"].get.responses["200"].content["application/json"]
          .schema.properties.clips,
      );
      const upload = body.paths["/api/v1/files/upload"].post;
      assert.deepEqual(Object.keys(upload.requestBody.content), [
        "multipart/form-data",
        "application/octet-stream",
      ]);
      assert.deepEqual(upload.requestBody.content["multipart/form-data"].schema.required, ["file"]);
      assert.deepEqual(upload.parameters.map((p: { name: string }) => p.name), [
        "name",
        "projectID",
      ]);
    });

    await t.step(
      "unknown routes are 404; a known path with the wrong method is 405 with Allow",
      async () => {
        const missing = await svc.get("/api/v1/nothing");
        assert.deepEqual(missing, {
          status: 404,
          headers: missing.headers,
          body: { error: { code: "NOT_FOUND", message: "No route for GET /api/v1/nothing" } },
        });
        const wrong = await svc.get("/api/v1/action");
        assert.equal(wrong.status, 405);
        assert.equal(wrong.headers.get("allow"), "POST, OPTIONS");
        assert.equal(wrong.body.error.code, "METHOD_NOT_ALLOWED");
        const post = await svc.post("/api/v1/projects", {});
        assert.equal(post.status, 405);
      },
    );

    await t.step(
      "a remote device is 401 on every authenticated route; /health stays open",
      async () => {
        const port = svc.service.ports.http;
        for (
          const path of ["/api/v1/projects", "/api/v1/info", "/api/v1/projects/show/playstate"]
        ) {
          const res = await remoteGet(port, path, { authorization: "Bearer made.up.token" });
          assert.equal(res.status, 401, path);
          assert.equal(JSON.parse(res.body).error.code, "AUTHENTICATION_FAILED");
        }
        const health = await remoteGet(port, "/health");
        assert.equal(health.status, 200);
        assert.equal(JSON.parse(health.body).ready, true);
      },
    );

    await t.step("a body over the limit is 413", async () => {
      const res = await svc.post(
        "/api/v1/action",
        JSON.stringify({ name: "PLAY_IN", pad: "x".repeat(2 * 1024 * 1024) }),
      );
      assert.equal(res.status, 413);
      assert.equal(res.body.error.code, "PAYLOAD_TOO_LARGE");
    });

    await t.step(
      "CORS: an allowed origin gets its headers and preflight; others do not",
      async () => {
        const preflight = await fetch(`${svc.base}/api/v1/action`, {
          method: "OPTIONS",
          headers: {
            origin: "http://console.local",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type",
          },
        });
        await preflight.body?.cancel();
        assert.equal(preflight.status, 204);
        assert.equal(preflight.headers.get("access-control-allow-origin"), "http://console.local");
        assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /POST/);
        const allowed = await svc.get("/api/v1/projects", {
          headers: { origin: "http://console.local" },
        });
        assert.equal(allowed.headers.get("access-control-allow-origin"), "http://console.local");
        const foreign = await svc.get("/api/v1/projects", {
          headers: { origin: "http://evil.example" },
        });
        assert.equal(foreign.headers.get("access-control-allow-origin"), null);
        assert.equal(
          foreign.status,
          403,
          "a foreign origin is refused, not just left without CORS headers",
        );
        assert.equal(foreign.body.error.code, "ORIGIN_NOT_ALLOWED");
      },
    );
  } finally {
    await svc.stop();
  }
});

Deno.test("errorAnswer() answers 500 SERVER_ERROR without leaking the error or its stack", async () => {
  const app = new Hono();
  app.onError((error) => errorAnswer(error));
  app.get("/boom", () => {
    throw new Error("secret detail at /home/show/key");
  });
  const res = await app.request("/boom");
  assert.equal(res.status, 500);
  const text = await res.text();
  assert.deepEqual(JSON.parse(text), {
    error: { code: "SERVER_ERROR", message: "Internal server error" },
  });
  assert.ok(!text.includes("secret") && !text.includes("at "));
});

Deno.test("allRoutes() builds the OpenAPI document and the edit schemas once, as stable answers", () => {
  // Building them with zod per request cost about 10 ms and megabytes of garbage each
  // (the peak RSS of the http_fuzz reliability probe).
  const routes = allRoutes({
    version: "x",
    startedAt: 0,
    ports: () => ({ http: 1, ws: 2, osc: 3 }),
    clients: () => ({ websocket: 0, mcp: 0, osc: 0 }),
  });
  const get = (path: string, params: Record<string, string> = {}) => {
    const route = routes.find((r) => r.method === "GET" && r.path === path)!;
    // The operation alone, with what its route describes: nothing of the request's context.
    return () => route.operation.run({ describe: route.describe } as never, params as never);
  };
  for (
    const [name, handle] of [
      ["openapi.json", get("/api/v1/openapi.json")],
      ["edit/schema", get("/api/v1/edit/schema")],
      ["edit/schema/:name", get("/api/v1/edit/schema/:name", { name: "clip.update" })],
    ] as const
  ) {
    const first = handle() as object;
    assert.equal(handle(), first, `${name}: the same object on every request`);
    assert.ok(isStableAnswer(first), `${name}: its JSON may be cached by identity`);
  }
  const all = get("/api/v1/edit/schema")() as { edits: { name: string }[] };
  const one = get("/api/v1/edit/schema/:name", { name: "clip.update" })();
  assert.equal(all.edits.find((e) => e.name === "clip.update"), one);
  assert.throws(get("/api/v1/edit/schema/:name", { name: "clip.explode" }), /No edit named/);
});

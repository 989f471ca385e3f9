import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { RawSocket } from "../../../tools/testing/ws_client.ts";
import { until } from "../../../tools/testing/until.ts";

Deno.test("pairing over HTTP: codes from localhost, tokens for remote devices, revocation", async (t) => {
  const svc = await startTestService();
  const port = svc.service.ports.http;
  const code = async () => (await svc.post("/api/v1/pair/code", {})).body.otp as string;
  try {
    await t.step("pair codes and the device list are local-only, whatever the token", async () => {
      assert.match(await code(), /^\d{6}$/);
      const remote = await remoteRequest(port, "POST", "/api/v1/pair/code", { body: {} });
      assert.equal(remote.status, 403);
      assert.equal(remote.body.error.code, "LOCAL_ONLY");
      assert.equal((await remoteRequest(port, "GET", "/api/v1/devices")).status, 403);
    });

    let token = "";
    let deviceId = "";
    await t.step("a remote device pairs once with a valid code, never twice", async () => {
      assert.equal((await remoteRequest(port, "GET", "/api/v1/projects")).status, 401);
      const otp = await code();
      const paired = await remoteRequest(port, "POST", "/api/v1/pair", {
        body: { otp, deviceName: "Stage iPad" },
      });
      assert.equal(paired.status, 200);
      assert.equal(paired.body.token.split(".").length, 3);
      assert.deepEqual(paired.body.scopes, ["view", "control", "edit"]);
      token = paired.body.token;
      deviceId = paired.body.deviceId;
      // As docs/security.md shows it: 12 hex digits (a UUID's first 12 held its hyphen).
      assert.match(deviceId, /^dev-[0-9a-f]{12}$/);
      const again = await remoteRequest(port, "POST", "/api/v1/pair", { body: { otp } });
      assert.equal(again.status, 401);
      const bad = await remoteRequest(port, "POST", "/api/v1/pair", { body: { otp: "12ab" } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.details.field, "otp");
    });

    await t.step(
      "the token opens the API; a forged one does not; query-string tokens are ignored",
      async () => {
        const ok = await remoteRequest(port, "GET", "/api/v1/projects", {
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(ok.status, 200);
        const forged = token.slice(0, -4) + (token.endsWith("AAAA") ? "BBBB" : "AAAA");
        assert.equal(
          (await remoteRequest(port, "GET", "/api/v1/projects", {
            headers: { authorization: `Bearer ${forged}` },
          })).status,
          401,
        );
        assert.equal(
          (await remoteRequest(port, "GET", `/api/v1/projects?token=${token}`)).status,
          401,
        );
        const listed = await svc.get("/api/v1/devices");
        assert.deepEqual(listed.body.devices.map((d: { name: string }) => d.name), ["Stage iPad"]);
      },
    );

    await t.step(
      "revoking a device stops its token at once and closes its live socket",
      async () => {
        const ws = await RawSocket.open("127.0.0.1", svc.service.ports.ws, {
          localAddress: "127.0.0.2",
        });
        ws.send({ type: "auth", id: "a", payload: { token } });
        await until("the auth answer", () => ws.json().some((m) => m.id === "a"), 10_000);
        assert.deepEqual(ws.json().find((m) => m.id === "a").data, { authenticated: true });
        const closed = new Promise<void>((resolve) => ws.onclose(resolve));
        const revoked = await svc.post("/api/v1/devices/" + deviceId, {}, { method: "DELETE" });
        assert.deepEqual(revoked.body, { ok: true, deviceId });
        await closed;
        assert.equal(ws.closeCode, 1008);
        assert.equal(
          (await remoteRequest(port, "GET", "/api/v1/projects", {
            headers: { authorization: `Bearer ${token}` },
          })).status,
          401,
        );
        assert.equal(
          (await svc.post("/api/v1/devices/" + deviceId, {}, { method: "DELETE" })).status,
          404,
        );
      },
    );

    await t.step("repeated wrong codes lock the address out: 429 with Retry-After", async () => {
      const good = await code();
      const wrong = good === "000000" ? "000001" : "000000";
      for (let i = 0; i < 5; i++) {
        assert.equal(
          (await remoteRequest(port, "POST", "/api/v1/pair", {
            body: { otp: wrong },
            localAddress: "127.0.0.3",
          })).status,
          401,
        );
      }
      const locked = await remoteRequest(port, "POST", "/api/v1/pair", {
        body: { otp: good },
        localAddress: "127.0.0.3",
      });
      assert.equal(locked.status, 429);
      assert.equal(locked.body.error.code, "RATE_LIMITED");
      assert.ok(Number(locked.headers["retry-after"]) > 0);
      const other = await remoteRequest(port, "POST", "/api/v1/pair", {
        body: { otp: good },
        localAddress: "127.0.0.4",
      });
      assert.equal(other.status, 200, "another address is not locked");
    });
  } finally {
    await svc.stop();
  }
});

Deno.test("localhostAuthExempt off: localhost must authenticate too", async () => {
  const svc = await startTestService({ localhostAuthExempt: false });
  try {
    const res = await svc.get("/api/v1/projects");
    assert.equal(res.status, 401);
    assert.equal((await svc.get("/health")).status, 200);
  } finally {
    await svc.stop();
  }
});

Deno.test("scopes chosen at pairing are enforced on HTTP and WebSocket", async () => {
  const svc = await startTestService();
  const port = svc.service.ports.http;
  try {
    const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
    const paired = await remoteRequest(port, "POST", "/api/v1/pair", {
      body: { otp, deviceName: "Viewer", scopes: ["view"] },
    });
    assert.deepEqual(paired.body.scopes, ["view"]);
    const auth = { authorization: `Bearer ${paired.body.token}` };
    assert.equal(
      (await remoteRequest(port, "GET", "/api/v1/projects", { headers: auth })).status,
      200,
    );
    const act = await remoteRequest(port, "POST", "/api/v1/action", {
      headers: auth,
      body: { name: "MUTE_TOGGLE" },
    });
    assert.equal(act.status, 403);
    assert.equal(act.body.error.code, "INSUFFICIENT_SCOPE");
    assert.match(act.body.error.message, /"control" scope/);

    const ws = await RawSocket.open("127.0.0.1", svc.service.ports.ws, {
      localAddress: "127.0.0.2",
    });
    ws.send({ type: "auth", id: "a", payload: { token: paired.body.token } });
    ws.send({ type: "query", id: "q", query: "appState" });
    ws.send({ type: "action", id: "x", action: { name: "MUTE_TOGGLE" } });
    await until("the action's answer", () => ws.json().some((m) => m.id === "x"), 10_000);
    const answers = Object.fromEntries(ws.json().filter((m) => m.id).map((m) => [m.id, m]));
    assert.equal(answers.a.data.authenticated, true);
    assert.equal(answers.q.type, "response");
    assert.equal(answers.x.error.code, "INSUFFICIENT_SCOPE");
    assert.equal((await svc.get("/api/v1/app-state")).body.muted, false);
    ws.destroy();
  } finally {
    await svc.stop();
  }
});

Deno.test("a device without the view scope may still narrow its updates with subscribe", async () => {
  const svc = await startTestService();
  try {
    const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
    const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
      body: { otp, deviceName: "Pedal", scopes: ["control"] },
    });
    const ws = await RawSocket.open("127.0.0.1", svc.service.ports.ws, {
      localAddress: "127.0.0.2",
    });
    ws.send({ type: "auth", id: "a", payload: { token: paired.body.token } });
    ws.send({ type: "subscribe", id: "s", payload: { updateTypes: ["appState"] } });
    ws.send({ type: "query", id: "q", query: "appState" });
    await until("the query's answer", () => ws.json().some((m) => m.id === "q"), 10_000);
    const answers = Object.fromEntries(ws.json().filter((m) => m.id).map((m) => [m.id, m]));
    assert.equal(answers.s.type, "response", JSON.stringify(answers.s));
    assert.equal(answers.q.error.code, "INSUFFICIENT_SCOPE");
    ws.destroy();
  } finally {
    await svc.stop();
  }
});

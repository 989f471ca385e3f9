import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";
import { until } from "../../../tools/testing/until.ts";

/** The approvals waiting for the operator, once there is one. */
async function waiting(
  svc: Awaited<ReturnType<typeof startTestService>>,
): Promise<Array<{ requestId: string; deviceName: string }>> {
  let pending: Array<{ requestId: string; deviceName: string }> = [];
  await until("an approval waiting", async () => {
    pending = (await svc.get("/api/v1/approvals")).body.approvals;
    return pending.length > 0;
  });
  return pending;
}

Deno.test("approval mode deny: a local client without credentials is refused", async () => {
  const svc = await startTestService({ approval: "deny" });
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    const answer = await ws.auth();
    assert.equal(answer.error.code, "AUTHENTICATION_FAILED");
    assert.match(answer.error.message, /not approved/);
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("approval mode wait: the operator approves through the local API; the client gets a token", async () => {
  const svc = await startTestService({ approval: "wait" });
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    ws.send({ type: "auth", id: "a1", payload: { deviceName: "Lighting desk" } });
    const pending = await waiting(svc);
    assert.equal(pending[0]!.deviceName, "Lighting desk");
    assert.equal(
      ws.messages.filter((m) => m.id === "a1").length,
      0,
      "no answer before the decision",
    );
    const decided = await svc.post(`/api/v1/approvals/${pending[0]!.requestId}`, { approve: true });
    assert.deepEqual(decided.body, { ok: true, requestId: pending[0]!.requestId, approved: true });
    const answer = await ws.take((m) => m.id === "a1");
    assert.equal(answer.data.authenticated, true);
    assert.ok(answer.data.token);
    const devices = (await svc.get("/api/v1/devices")).body.devices;
    assert.deepEqual(devices.map((d: { name: string }) => d.name), ["Lighting desk"]);
    assert.equal((await svc.post("/api/v1/approvals/nope", { approve: true })).status, 404);
    // the same client connecting again without its token gets an entry and a token of its own
    const again = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
    await again.take();
    again.send({ type: "auth", id: "a2", payload: { deviceName: "Lighting desk" } });
    const next = await waiting(svc);
    await svc.post(`/api/v1/approvals/${next[0]!.requestId}`, { approve: true });
    assert.ok((await again.take((m) => m.id === "a2")).data.token);
    assert.equal((await svc.get("/api/v1/devices")).body.devices.length, 2);
    await again.close();
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("two local clients approved without credentials keep their own tokens; a reconnect with its token keeps its entry", async () => {
  const svc = await startTestService({ localhostAuthExempt: false });
  const url = `ws://127.0.0.1:${svc.service.ports.ws}/v1`;
  const [companion, script] = [await TestSocket.open(url), await TestSocket.open(url)];
  try {
    await companion.take();
    await script.take();
    const first = (await companion.auth()).data.token;
    const second = (await script.auth()).data.token;
    assert.ok(first && second && first !== second);
    for (const token of [first, second]) {
      const res = await svc.get("/api/v1/projects", {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(res.status, 200, "the second approval did not revoke the first token");
    }
    const back = await TestSocket.open(url);
    await back.take();
    const again = await back.request({ type: "auth", payload: { token: first } });
    assert.equal(again.data.authenticated, true);
    const devices = await svc.get("/api/v1/devices", {
      headers: { authorization: `Bearer ${second}` },
    });
    assert.equal(devices.body.devices.length, 2, "coming back with its token adds no entry");
    await back.close();
  } finally {
    await companion.close();
    await script.close();
    await svc.stop();
  }
});

Deno.test("approval mode wait: a client the operator denies is told so and closed at once (1008)", async () => {
  const svc = await startTestService({ approval: "wait" });
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    ws.send({ type: "auth", id: "a1", payload: { deviceName: "Stranger" } });
    const pending = await waiting(svc);
    await svc.post(`/api/v1/approvals/${pending[0]!.requestId}`, { approve: false });
    const answer = await ws.take((m) => m.id === "a1");
    assert.equal(answer.error.code, "AUTHENTICATION_FAILED");
    assert.match(answer.error.message, /not approved on the show machine/);
    // It was left open until its auth deadline, then closed as "Authentication timeout".
    assert.deepEqual(await ws.closed, { code: 1008, reason: "Not approved on the show machine" });
  } finally {
    await ws.close();
    await svc.stop();
  }
});

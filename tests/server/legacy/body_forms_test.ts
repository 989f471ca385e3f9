/**
 * One body per port: the 6.0 port takes the 6.0 action and edit bodies only,
 * the 5.0.0 port takes the 5.0.0 ones (and the 6.0 ones, as a 5.0.0 client
 * moving to 6.0 sends them); docs/compat.md, "One body per port".
 */
import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";

Deno.test("the 6.0 port refuses 5.0.0 action and edit bodies, naming the 6.0 form; the 5.0.0 port takes them", async () => {
  const svc = await startTestService({ legacyHttpPort: 0, legacyWsPort: 0 });
  const v5 = `http://127.0.0.1:${svc.service.ports.legacyHttp}`;
  const post = async (base: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: "POST", body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  try {
    const action = { action: { name: "SeekClipAction", params: ["c1", 5] } };
    const refused = await svc.post("/api/v1/action", action);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.details.field, "action");
    assert.match(refused.body.error.message, /is the 5\.0\.0 body: send \{"name": /);
    // It points to the 5.0.0 port this service has bound, not the setting's default.
    const port = svc.service.ports.legacyHttp;
    assert.ok(refused.body.error.message.endsWith(`to the 5.0.0 port, ${port}`), `${port}`);
    const taken = await post(v5, "/api/v1/action", action);
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    assert.equal(taken.body.action, "SeekClipAction");
    assert.equal(taken.body.params.percent, 0.5, "5 seconds of a 10-second Clip");
    // The 5.0.0 port also takes the 6.0 body, named in 5.0.0 terms.
    const six = await post(v5, "/api/v1/action", { name: "NEXT_SONG_IN" });
    assert.deepEqual([six.status, six.body.action], [200, "NextSongAction"]);

    const edit = { edit: { name: "clip.update", params: { clipID: "c6", direction: "reverse" } } };
    const editRefused = await svc.post("/api/v1/edit", edit);
    assert.equal(editRefused.status, 400);
    assert.equal(editRefused.body.error.details.field, "edit");
    assert.match(editRefused.body.error.message, /"name": "clip.update"/);
    assert.ok(editRefused.body.error.message.endsWith(`to the 5.0.0 port, ${port}`));
    const v5Name = await svc.post("/api/v1/action", { name: "NextSongAction" });
    assert.ok(v5Name.body.error.message.endsWith(`to the 5.0.0 port, ${port}`));
    const editTaken = await post(v5, "/api/v1/edit", edit);
    assert.equal(editTaken.status, 200, JSON.stringify(editTaken.body));
    const clip = (await svc.get("/api/v1/projects/show/clips?ids=c6")).body.clips[0];
    assert.equal(clip.direction, "backward");
    // The 5.0.0 WebSocket points a 6.0 message to the 6.0 WebSocket as bound here.
    const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.legacyWs}/`);
    try {
      ws.send({ type: "query", correlationId: "q1", payload: {} });
      const answer = await ws.take((m) => m.correlationId === "q1");
      assert.match(JSON.stringify(answer), /queries, filters and the rest are 6\.0/);
      assert.ok(
        JSON.stringify(answer).includes(`ws://<host>:${svc.service.ports.ws}/v1`),
        JSON.stringify(answer),
      );
    } finally {
      await ws.close();
    }
  } finally {
    await svc.stop();
  }
});

import assert from "node:assert/strict";
import { startTestService } from "../../_helpers/service.ts";
import { TestSocket } from "../../_helpers/ws_client.ts";

Deno.test("WebSocket refuses unknown fields as HTTP does, naming them", async () => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
    await ws.request({ type: "action", action: { name: "PLAY_IN" } });
    // `projectId` is not the action's spelling (`projectID`): refused, nothing stopped.
    const answer = await ws.request({
      type: "action",
      action: { name: "STOP_IN" },
      projectId: "nope",
    });
    assert.equal(answer.type, "error");
    assert.equal(answer.error.code, "INVALID_MESSAGE");
    assert.match(answer.error.message, /projectId/);
    const playing = (await svc.get("/api/v1/projects/show/playstate")).body.song.state;
    assert.equal(playing, "playing", "the bad message changed nothing");
    const query = await ws.request({ type: "query", query: "songs", params: { projectID: "x" } });
    assert.equal(query.error.code, "INVALID_MESSAGE");
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("WebSocket idempotencyKey: a retried action is applied once and answered with the first outcome", async () => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
    const mute = { type: "action", action: { name: "MUTE_TOGGLE" }, idempotencyKey: "m-1" };
    const first = await ws.request(mute);
    const retry = await ws.request(mute);
    assert.equal(first.type, "response");
    assert.deepEqual(retry.data, first.data);
    assert.equal((await svc.get("/api/v1/app-state")).body.muted, true, "toggled once");
    const bad = await ws.request({ ...mute, idempotencyKey: "" });
    assert.equal(bad.error.details.field, "idempotencyKey");
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("WebSocket counts a message's size in bytes, as documented, not in UTF-16 units", async () => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
    // 40,000 characters, 80,000 bytes of UTF-8: over the 65,536-byte limit.
    const text = "\u00e9".repeat(40_000); // e-acute: 2 bytes in UTF-8
    ws.send({ type: "ping", id: "big", pad: text });
    // Too large to be read, so its id is not known: the error comes with id null.
    const answer = await ws.take((m) => m.type === "error");
    assert.equal(answer.error.code, "INVALID_MESSAGE");
    assert.match(answer.error.message, /Message too large: over 65536 bytes/);
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("WebSocket query song takes songID as every transport does; the older songId still works", async () => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
    const http = (await svc.get("/api/v1/projects/show/songs/s1")).body;
    const song = await ws.request({ type: "query", query: "song", params: { songID: "s1" } });
    assert.deepEqual(song.data, http);
    const old = await ws.request({ type: "query", query: "song", params: { songId: "s1" } });
    assert.deepEqual(old.data, http);
    const both = await ws.request({
      type: "query",
      query: "song",
      params: { songID: "s1", songId: "s2" },
    });
    assert.equal(both.error.details.field, "params");
    assert.match(both.error.message, /songId/);
  } finally {
    await ws.close();
    await svc.stop();
  }
});

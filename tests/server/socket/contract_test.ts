import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { RawSocket, TestSocket } from "../../../tools/testing/ws_client.ts";
import { until } from "../../../tools/testing/until.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";

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
    assert.equal(both.error.details.field, "params.songId");
    // A Project the query names that does not exist: its field as sent (it said "projectID").
    const ghost = await ws.request({
      type: "query",
      query: "project",
      params: { projectId: "nope" },
    });
    assert.deepEqual([ghost.error.code, ghost.error.details.field], [
      "NOT_FOUND",
      "params.projectId",
    ]);
    assert.equal((await svc.get("/api/v1/projects/nope")).body.error.details.field, "projectId");
    // Said as what it is (it said "not a field of params", of a spelling still accepted).
    assert.equal(
      both.error.message,
      "Invalid params.songId: songId is the older spelling of songID, also sent: send songID alone",
    );
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("WebSocket errors name the real field path and the valid fields, as HTTP does", async () => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  const refusal = async (message: Record<string, unknown>) => {
    const answer = await ws.request(message);
    assert.equal(answer.type, "error", JSON.stringify(message));
    assert.equal(answer.error.code, "INVALID_MESSAGE");
    return answer.error;
  };
  try {
    await ws.take();
    await ws.auth();
    // An unknown key of the message: named, with the fields the message has (HTTP lists them too).
    const extra = await refusal({ type: "action", action: { name: "PLAY_IN" }, foo: 1 });
    assert.equal(extra.details.field, "foo");
    assert.match(extra.message, /^Invalid foo: not a field of the action message: use /);
    assert.match(extra.message, /projectID/);
    const http = await svc.post("/api/v1/action", { name: "PLAY_IN", foo: 1 });
    assert.equal(http.body.error.details.field, "foo");
    const near = await refusal({ type: "action", action: { name: "PLAY_IN" }, projectId: "x" });
    assert.equal(near.details.field, "projectId");
    assert.match(near.message, /did you mean "projectID"\?/);
    const inAction = await refusal({ type: "action", action: { name: "PLAY_IN", param: [] } });
    assert.equal(inAction.details.field, "action.param");
    assert.match(inAction.message, /did you mean "params"\?\): use name, params$/);
    // A query's params: the docs promise `params.projectID`, with the query's own fields.
    const param = await refusal({ type: "query", query: "songs", params: { projectID: "show" } });
    assert.equal(param.details.field, "params.projectID");
    assert.match(param.message, /did you mean "projectId"\?\): use projectId$/);
    // Items of an array by their index, as in `edits.1.params.clipID`.
    const item = await refusal({ type: "subscribe", payload: { updateTypes: ["song", "x"] } });
    assert.equal(item.details.field, "payload.updateTypes.1");
    const auth = await refusal({ type: "auth", payload: { tokn: "x" } });
    assert.equal(auth.details.field, "payload.tokn");
    assert.match(auth.message, /did you mean "token"\?\): use token, otp, deviceName$/);
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("WebSocket: a remote client without credentials is told what a WebSocket client sends", async () => {
  const svc = await startTestService();
  const ws = await RawSocket.open("127.0.0.1", svc.service.ports.ws, { localAddress: "127.0.0.2" });
  try {
    ws.send({ type: "auth", id: "a", payload: {} });
    await until("the refusal", () => ws.json().some((m) => m.id === "a"));
    const refusal = ws.json().find((m) => m.id === "a");
    assert.equal(refusal.error.code, "AUTHENTICATION_FAILED");
    assert.doesNotMatch(refusal.error.message, /Authorization|Bearer/);
    assert.match(refusal.error.message, /"payload": \{"token": "<token>"\}/);
    assert.match(refusal.error.message, /"otp": "<code>", "deviceName"/);
    // HTTP names its header.
    const http = await remoteRequest(svc.service.ports.http, "GET", "/api/v1/projects");
    assert.equal(http.status, 401);
    assert.match(http.body.error.message, /Authorization: Bearer <token>/);
  } finally {
    ws.destroy();
    await svc.stop();
  }
});

import assert from "node:assert/strict";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { RawSocket, TestSocket } from "../../../tools/testing/ws_client.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { until } from "../../../tools/testing/until.ts";

const wsUrl = (svc: TestService, path = "/v1") => `ws://127.0.0.1:${svc.service.ports.ws}${path}`;
const isUpdate = (m: { event?: string }) => m.event === "state-update";

Deno.test("WebSocket /v1: greeting, auth gate, actions, errors, queries", async (t) => {
  const svc = await startTestService({ wsMaxMessageBytes: 1024 });
  const ws = await TestSocket.open(wsUrl(svc));
  try {
    await t.step("the greeting comes first, before the client says anything", async () => {
      const hello = await ws.take();
      assert.equal(hello.type, "event");
      assert.equal(hello.event, "connected");
      assert.match(hello.clientId, /^c\d+-/);
      assert.equal(hello.payload.clientId, hello.clientId);
      assert.equal(hello.payload.apiVersion, "6.0");
    });

    await t.step("other paths are 404; plain HTTP on /v1 is 426", async () => {
      const other = await fetch(`http://127.0.0.1:${svc.service.ports.ws}/`);
      assert.equal(other.status, 404);
      assert.equal((await other.json()).error.code, "NOT_FOUND");
      const plain = await fetch(`http://127.0.0.1:${svc.service.ports.ws}/v1`);
      assert.equal(plain.status, 426);
      await plain.body?.cancel();
    });

    await t.step("anything before auth is refused and not executed", async () => {
      const refused = await ws.request({
        type: "action",
        action: { name: "PLAY_CLIP_IN", params: ["c1"] },
      });
      assert.equal(refused.type, "error");
      assert.equal(refused.error.code, "AUTHENTICATION_FAILED");
      assert.deepEqual((await svc.get("/api/v1/projects/show/playstate")).body.clips, []);
      const query = await ws.request({ type: "query", query: "projects" });
      assert.equal(query.error.code, "AUTHENTICATION_FAILED");
    });

    await t.step(
      "a local client with empty credentials is approved and gets a token to reuse",
      async () => {
        ws.send({ type: "auth", id: "auth-1", payload: {} });
        const answer = await ws.take((m) => m.id === "auth-1");
        assert.equal(answer.type, "response");
        assert.equal(answer.data.authenticated, true);
        assert.equal(answer.data.token.split(".").length, 3);
        const again = await TestSocket.open(wsUrl(svc));
        await again.take();
        const reuse = await again.request({ type: "auth", payload: { token: answer.data.token } });
        assert.deepEqual(reuse.data, { authenticated: true });
        await again.close();
      },
    );

    await t.step("actions answer with the same id; base is a sibling of action", async () => {
      ws.send({
        id: "x1",
        type: "action",
        action: { name: "PLAY_CLIP_BY_INDEX_IN", params: [2] },
        base: 1,
        velocity: 64,
      });
      const answer = await ws.take((m) => m.id === "x1");
      assert.equal(answer.type, "response");
      assert.deepEqual([answer.data.action, answer.data.params.index, answer.data.velocity], [
        "PLAY_CLIP_BY_INDEX_IN",
        1,
        64,
      ]);
      const refused = await ws.request({ type: "action", action: { name: "RESUME_IN" } });
      assert.deepEqual(refused.error, { code: "ACTION_FAILED", message: "Nothing is paused" });
      const invalid = await ws.request({
        type: "action",
        action: { name: "SEEK_CLIP_IN", params: ["c1", 2] },
      });
      assert.equal(invalid.error.code, "INVALID_MESSAGE");
      assert.equal(invalid.error.details.field, "params[1] (percent)");
    });

    await t.step(
      "answers keep message order, and a query sees the actions sent before it",
      async () => {
        ws.send({ id: "o1", type: "action", action: { name: "PLAY_CLIP_IN", params: ["c3"] } });
        ws.send({ id: "o2", type: "query", query: "clips", params: { ids: ["c3"] } });
        ws.send({ id: "o3", type: "ping" });
        const first = await ws.take((m) => m.id?.startsWith?.("o"));
        const second = await ws.take((m) => m.id?.startsWith?.("o"));
        const third = await ws.take((m) => m.id?.startsWith?.("o"));
        assert.deepEqual([first.id, second.id, third.id], ["o1", "o2", "o3"]);
        assert.equal(second.data.clips[0].current.state, "playing");
        assert.equal(third.data.pong, true);
      },
    );

    await t.step(
      "every malformed message gets a defined answer and the connection survives",
      async () => {
        const cases: Array<[unknown, string]> = [
          ["{not json", "Invalid JSON"],
          ["[1, 2]", "must be a JSON object"],
          [{ type: "launch" }, 'Unknown type "launch"'],
          [{ id: 1 }, "Missing type: use auth"],
          [{ id: 1, type: null }, "Unknown type null"],
          [{ type: "action", action: 5 }, "Invalid action"],
          [{ type: "query", query: "everything" }, "Invalid query"],
          ["x".repeat(2000), "Message too large: over 1024 bytes"],
          [new Uint8Array([1, 2, 3]), "Binary frames are not supported"],
        ];
        for (const [message, text] of cases) {
          ws.send(message);
          const error = await ws.take((m) => m.type === "error");
          assert.equal(error.error.code, "INVALID_MESSAGE");
          assert.ok(error.error.message.includes(text), `${error.error.message} includes ${text}`);
        }
        assert.equal((await ws.request({ type: "ping" })).data.pong, true);
      },
    );

    await t.step("queries answer like their HTTP routes", async () => {
      const http = (await svc.get("/api/v1/projects/show/summary")).body;
      const viaSocket = await ws.request({
        type: "query",
        query: "summary",
        params: { projectId: "show" },
      });
      assert.deepEqual(viaSocket.data, http);
      const active = await ws.request({ type: "query", query: "playstate" });
      assert.equal(active.data.projectId, "show");
      const missing = await ws.request({
        type: "query",
        query: "song",
        params: { songID: "nope" },
      });
      assert.equal(missing.error.code, "NOT_FOUND");
      const preset = await ws.request({
        type: "query",
        query: "preset",
        params: { kind: "effect", presetId: "fx-blur" },
      });
      assert.equal(preset.data.presetId, "fx-blur");
    });
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("WebSocket state updates: coalesced bursts, sequence numbers, filters, full", async (t) => {
  const svc = await startTestService({ coalesceMs: 300 });
  const ws = await TestSocket.open(wsUrl(svc));
  try {
    await ws.take();
    await ws.auth();
    await t.step("a burst arrives as one message with each value's latest state", async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `b${i}`);
      ids.forEach((id, i) =>
        ws.send({
          id,
          type: "action",
          action: { name: "SET_CONTROL", params: ["A", (i + 1) / 20] },
        })
      );
      for (const id of ids) assert.equal((await ws.take((m) => m.id === id)).type, "response");
      const update = await ws.take(isUpdate);
      assert.ok(Number.isInteger(update.seq));
      const controls = update.payload.filter((u: { data: { event: string } }) =>
        u.data.event === "control-changed"
      );
      assert.equal(controls.length, 1, "twenty changes of Control A arrive once");
      assert.equal(controls[0].data.value, 1);
      const params = update.payload.filter((u: { data: { event: string } }) =>
        u.data.event === "param-changed"
      );
      assert.deepEqual(params.map((u: { data: { value: number } }) => u.data.value), [1]);
      assert.equal(ws.messages.filter(isUpdate).length, 0, "nothing else was sent for the burst");
    });

    await t.step("sequence numbers go up by one per message", async () => {
      const before = (await ws.request({ type: "full" })).data.seq;
      const full = await ws.take(isUpdate);
      assert.equal(full.seq, before);
      assert.equal(full.payload[0].updateType, "full");
      assert.equal(full.payload[0].data.state.projects[0].id, "show");
      await ws.request({ type: "action", action: { name: "MUTE_TOGGLE" } });
      const next = await ws.take(isUpdate);
      assert.equal(next.seq, before + 1);
    });

    await t.step("a client can narrow what it receives", async () => {
      const sub = await ws.request({ type: "subscribe", payload: { updateTypes: ["appState"] } });
      assert.deepEqual(sub.data.subscribed.updateTypes, ["appState"]);
      await ws.request({ type: "action", action: { name: "SET_CONTROL", params: ["B", 0.3] } });
      await ws.request({ type: "action", action: { name: "FULLSCREEN_TOGGLE" } });
      const update = await ws.take(isUpdate);
      assert.deepEqual(update.payload.map((u: { updateType: string }) => u.updateType), [
        "appState",
      ]);
      assert.equal(update.payload[0].data.appState.fullScreen, true);
      const bad = await ws.request({ type: "subscribe", payload: { updateTypes: ["weather"] } });
      assert.equal(bad.error.code, "INVALID_MESSAGE");
    });
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("WebSocket clients get a full update when the player is back after a crash", async () => {
  const svc = await startTestService();
  const ws = await TestSocket.open(wsUrl(svc));
  try {
    await ws.take();
    await ws.auth();
    svc.service.core.bus.flush(); // the first start's full update, if still pending, goes now
    await ws.request({ type: "ping" });
    ws.messages.length = 0;
    Deno.kill(svc.service.supervisor.pid!, "SIGKILL");
    const update = await ws.take((m) =>
      isUpdate(m) && m.payload.some((u: { updateType: string }) => u.updateType === "full")
    );
    const full = update.payload.find((u: { updateType: string }) => u.updateType === "full");
    assert.equal(full.data.event, "player-ready");
    assert.equal(full.data.state.projects[0].id, "show");
    assert.equal(
      (await ws.request({ type: "action", action: { name: "MUTE_TOGGLE" } })).type,
      "response",
    );
  } finally {
    await ws.close();
    await svc.stop();
  }
});

/** Pairs 127.0.0.2 with the service and returns its token. */
async function pairRemote(svc: TestService): Promise<string> {
  const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
  const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
    body: { otp, deviceName: "Rate test" },
  });
  assert.equal(paired.status, 200);
  return paired.body.token;
}

/** The answers with these ids, once all have come. */
async function answersOf(remote: RawSocket, ids: string[]) {
  await until("the answers", () => ids.every((id) => remote.json().some((m) => m.id === id)));
  return ids.map((id) => remote.json().find((m) => m.id === id)!);
}

Deno.test("WebSocket rate limit answers RATE_LIMITED to a remote device and does not execute", async () => {
  // Slow refills (one message every 2 s), so a busy machine's slow reading of the burst below
  // does not earn it tokens back: the limit is on the rate, not on how fast the test sends.
  const svc = await startTestService({
    httpRatePerSecond: 0.5,
    httpBurst: 8,
    wsRatePerSecond: 0.5,
  });
  const remote = await RawSocket.open("127.0.0.1", svc.service.ports.ws, {
    localAddress: "127.0.0.2",
  });
  try {
    const token = await pairRemote(svc); // two requests of the budget: 6 left
    const ids = Array.from({ length: 10 }, (_, i) => `m${i}`);
    remote.send({ type: "auth", id: "a", payload: { token } }); // one more
    ids.forEach((id) => remote.send({ id, type: "action", action: { name: "MUTE_TOGGLE" } }));
    const [auth] = await answersOf(remote, ["a"]);
    assert.equal(auth!.type, "response");
    const answers = await answersOf(remote, ids);
    const limited = answers.filter((a) => a.error?.code === "RATE_LIMITED");
    const done = answers.filter((a) => a.type === "response");
    assert.ok(limited.length >= 4, `${limited.length} limited`);
    assert.equal(done.length + limited.length, 10);
    assert.match(limited[0]!.error.message, /Too many messages: over 0.5 per second/);
    assert.ok(limited[0]!.error.details.retryAfterSeconds >= 1);
    const muted = (await svc.get("/api/v1/app-state")).body.muted;
    assert.equal(muted, done.length % 2 === 1, "only the admitted toggles ran");
  } finally {
    remote.destroy();
    await svc.stop();
  }
});

Deno.test("one rate budget per address: HTTP spends it, the WebSocket of the same address is refused", async () => {
  const svc = await startTestService({ httpRatePerSecond: 0.5, httpBurst: 4, wsRatePerSecond: 1 });
  const remote = await RawSocket.open("127.0.0.1", svc.service.ports.ws, {
    localAddress: "127.0.0.2",
  });
  const local = await TestSocket.open(wsUrl(svc));
  try {
    // A WebSocket message costs 0.5 / 1 of a request: 8 messages, or 4 requests, or a mix.
    for (let i = 0; i < 3; i++) {
      assert.equal((await remoteRequest(svc.service.ports.http, "GET", "/health")).status, 200);
    }
    const ids = ["w0", "w1", "w2"];
    ids.forEach((id) => remote.send({ id, type: "auth", payload: {} }));
    const codes = (await answersOf(remote, ids)).map((a) => a.error?.code);
    assert.deepEqual(codes, ["AUTHENTICATION_FAILED", "AUTHENTICATION_FAILED", "RATE_LIMITED"]);
    const http = await remoteRequest(svc.service.ports.http, "GET", "/health");
    assert.equal(http.status, 429, "the WebSocket spent the rest of the HTTP budget");
    // Local clients are never limited, on either transport.
    await local.take();
    await local.auth();
    for (let i = 0; i < 20; i++) {
      assert.equal((await local.request({ type: "query", query: "projects" })).type, "response");
    }
  } finally {
    remote.destroy();
    await local.close();
    await svc.stop();
  }
});

Deno.test("WebSocket: a remote device (127.0.0.2) cannot authenticate with empty credentials", async () => {
  const svc = await startTestService();
  const remote = await RawSocket.open("127.0.0.1", svc.service.ports.ws, {
    localAddress: "127.0.0.2",
  });
  try {
    remote.send({ type: "auth", id: "r1", payload: {} });
    remote.send({ type: "action", id: "r2", action: { name: "MUTE_TOGGLE" } });
    await until("the action's answer", () => remote.json().some((m) => m.id === "r2"), 10_000);
    const [auth, action] = ["r1", "r2"].map((id) => remote.json().find((m) => m.id === id));
    assert.equal(auth.error.code, "AUTHENTICATION_FAILED");
    assert.match(auth.error.message, /or pair with {"type": "auth", "payload": {"otp"/);
    assert.equal(action.error.code, "AUTHENTICATION_FAILED");
    assert.equal((await svc.get("/api/v1/app-state")).body.muted, false, "nothing ran");
  } finally {
    remote.destroy();
    await svc.stop();
  }
});

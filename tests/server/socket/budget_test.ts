import assert from "node:assert/strict";
import { bigProject } from "../../../bench/big_project.ts";
import { RawSocket, TestSocket } from "../../../tools/testing/ws_client.ts";
import {
  FloodClient,
  rss,
  type SocketHarness,
  startSocketServer,
  testAuthenticator,
  textFrame,
} from "./_harness.ts";
import { until } from "../../../tools/testing/until.ts";

const MB = 1024 * 1024;
const PING = textFrame('{"type":"ping","id":1}');

/** An authenticated local client that reads everything, to check the others are still served. */
async function reader(port: number): Promise<TestSocket> {
  const ws = await TestSocket.open(`ws://127.0.0.1:${port}/v1`);
  await ws.take((m) => m.event === "connected");
  assert.equal((await ws.auth()).type, "response");
  return ws;
}

/**
 * Floods `frames` (up to 200 MB) from a client that never reads, until the
 * service logs `closeLine`, while this process's resident set is sampled (the
 * service runs in it; the flood stops once growth passes 100 MB) and another
 * client pings.
 */
async function floodWithoutReading(
  h: SocketHarness,
  frames: Uint8Array,
  options: { localAddress?: string; auth?: Record<string, unknown>; closeLine: string },
): Promise<void> {
  const other = await reader(h.port);
  const flood = await FloodClient.open(h.port, options);
  try {
    const before = rss();
    let growth = 0;
    const isClosed = () => h.logs.some((l) => l.includes(options.closeLine));
    const pingDuring = other.request({ type: "ping" });
    const written = await flood.flood(frames, 200 * MB, () => {
      growth = Math.max(growth, rss() - before);
      return growth < 100 * MB && !isClosed();
    });
    assert.ok(growth < 100 * MB, `RSS grew ${(growth / MB).toFixed(0)} MB`);
    assert.ok(isClosed(), `not closed after ${(written / MB).toFixed(0)} MB: ${h.logs}`);
    assert.equal(h.sockets.clientCount, 1, "only the other client is left");
    assert.equal((await pingDuring).data.pong, true, "another client is answered during the flood");
    assert.equal((await other.request({ type: "ping" })).data.pong, true, "and after it");
  } finally {
    flood.destroy();
    await other.close();
  }
}

Deno.test("SocketClient closes an unauthenticated remote client that sends pings and never reads (1008)", async () => {
  const h = await startSocketServer();
  try {
    await floodWithoutReading(h, PING, {
      localAddress: "127.0.0.2",
      closeLine: "(127.0.0.2) closed: 1008 Too slow: not reading its messages",
    });
  } finally {
    await h.stop();
  }
});

Deno.test("SocketClient closes an unauthenticated client that sends a message over the limit (1009)", async () => {
  const h = await startSocketServer();
  try {
    await floodWithoutReading(h, textFrame(`"${"x".repeat(100 * 1024)}"`), {
      localAddress: "127.0.0.2",
      closeLine: "(127.0.0.2) closed: 1009 Message too big: authenticate first",
    });
  } finally {
    await h.stop();
  }
});

Deno.test("SocketClient closes an authenticated client that keeps sending and never reads (1008)", async () => {
  const h = await startSocketServer(); // the default budget, 4 MiB
  try {
    await floodWithoutReading(h, PING, {
      auth: { type: "auth", id: "a", payload: {} },
      closeLine: "(127.0.0.1) closed: 1008 Too slow: not reading its messages",
    });
  } finally {
    await h.stop();
  }
});

Deno.test("SocketClient keeps a briefly slow client: its answers and messages wait, in order, then updates resync", async () => {
  // Each full snapshot of this project is about 3 MB: a few fill the socket buffers of a client that stopped reading.
  const h = await startSocketServer(
    { maxBufferedBytes: 64 * 1024, lagCloseMs: 60_000 },
    { projects: [bigProject("big", 100, 100)] },
  );
  const slow = await RawSocket.open("127.0.0.1", h.port);
  try {
    slow.send({ type: "auth", id: "a", payload: {} });
    await until("the auth answer", () => slow.json().some((m) => m.id === "a"), 20_000);
    slow.pause();
    const ids = ["f1", "p1", "f2", "p2", "f3", "p3", "f4", "p4", "f5", "p5"];
    for (const id of ids) slow.send({ type: id.startsWith("f") ? "full" : "ping", id });
    await until("the slow client's messages to wait", () => h.sockets.waitingCount === 1, 20_000);
    await h.core.runAction({ name: "SET_CONTROL", params: ["A", 0.5] });
    await until("the update to be skipped", () => h.sockets.laggingCount === 1, 20_000);

    slow.resume();
    await until(
      "the resync",
      () => slow.json().some((m) => m.payload?.[0]?.data?.event === "resync"),
      20_000,
    );
    await until("the last answer", () => slow.json().some((m) => m.id === "p5"), 20_000);
    const answers = slow.json().filter((m) => m.type === "response" && m.id !== "a");
    assert.deepEqual(answers.map((m) => m.id), ids, "every message answered, in order");
    assert.equal(slow.closeCode, null);
    assert.equal(h.sockets.clientCount, 1);
    assert.equal(h.sockets.waitingCount, 0);
    assert.equal(h.sockets.laggingCount, 0);
  } finally {
    slow.destroy();
    await h.stop();
  }
});

Deno.test("SocketClient closes a client whose messages wait longer than lagCloseMs (1008)", async () => {
  const h = await startSocketServer(
    { maxBufferedBytes: 64 * 1024, lagCloseMs: 300 },
    { projects: [bigProject("big", 100, 100)] },
  );
  const stuck = await RawSocket.open("127.0.0.1", h.port);
  try {
    stuck.send({ type: "auth", id: "a", payload: {} });
    await until("the auth answer", () => stuck.json().some((m) => m.id === "a"), 20_000);
    stuck.pause();
    for (const id of ["f1", "f2", "f3", "f4", "f5"]) stuck.send({ type: "full", id });
    stuck.send({ type: "ping", id: "p" });
    await until("its messages to wait", () => h.sockets.waitingCount === 1, 20_000);
    await until("the close, 300 ms later", () => h.sockets.clientCount === 0, 20_000);
    assert.ok(
      h.logs.some((l) => l.includes("closed: 1008 Too slow: not reading its messages")),
      h.logs.join("\n"),
    );
  } finally {
    stuck.destroy();
    await h.stop();
  }
});

Deno.test("SocketClient closes a client that has not authenticated by the deadline (1008)", async () => {
  const h = await startSocketServer({ authTimeoutMs: 200 });
  const authenticated = await reader(h.port);
  const silent = await RawSocket.open("127.0.0.1", h.port, { localAddress: "127.0.0.2" });
  try {
    await until("the close", () => silent.closeCode !== null, 20_000);
    assert.equal(silent.closeCode, 1008);
    assert.ok(
      h.logs.some((l) => l.includes("closed: 1008 Authentication timeout")),
      String(h.logs[0]),
    );
    assert.equal((await authenticated.request({ type: "ping" })).data.pong, true);
    assert.equal(h.sockets.clientCount, 1, "the authenticated client stays");
  } finally {
    silent.destroy();
    await authenticated.close();
    await h.stop();
  }
});

Deno.test("SocketClient lets an auth being decided at the deadline finish; a refusal then closes", async () => {
  const gate = Promise.withResolvers<void>();
  const inner = testAuthenticator(gate.promise);
  let asked = 0;
  const h = await startSocketServer({ authTimeoutMs: 1000 }, {
    authenticator: { ...inner, authenticate: (c) => (asked++, inner.authenticate(c)) },
  });
  const good = await RawSocket.open("127.0.0.1", h.port, { localAddress: "127.0.0.2" });
  const bad = await RawSocket.open("127.0.0.1", h.port, { localAddress: "127.0.0.2" });
  // Connected last, with the same deadline: once it is closed for it, the others' passed too.
  const silent = await RawSocket.open("127.0.0.1", h.port, { localAddress: "127.0.0.2" });
  const timeouts = () => h.logs.filter((l) => l.includes("closed: 1008 Authentication timeout"));
  try {
    good.send({ type: "auth", id: "g", payload: { token: "good" } });
    bad.send({ type: "auth", id: "b", payload: { token: "bad" } });
    await until("both auths to be asked", () => asked === 2, 20_000);
    await until(
      "the silent client's close at its deadline",
      () => silent.closeCode !== null,
      20_000,
    );
    assert.equal(timeouts().length, 1, `only the silent client: ${timeouts().join("; ")}`);
    assert.deepEqual([good.closeCode, bad.closeCode], [null, null], "both wait for their answer");
    gate.resolve();
    await until("the refused client's close", () => bad.closeCode !== null, 20_000);
    assert.equal(bad.closeCode, 1008);
    assert.equal(bad.json().find((m) => m.id === "b")?.error.code, "AUTHENTICATION_FAILED");
    await until(
      "the accepted client's answer",
      () => good.json().some((m) => m.id === "g"),
      20_000,
    );
    good.send({ type: "ping", id: "p" });
    await until("the ping answer", () => good.json().some((m) => m.id === "p"), 20_000);
    assert.equal(good.closeCode, null);
  } finally {
    good.destroy();
    bad.destroy();
    silent.destroy();
    await h.stop();
  }
});

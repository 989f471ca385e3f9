/**
 * The OSCQuery port behind the same edge as the HTTP port: Host and Origin
 * checks, the view scope, revocation, connection budgets and deadlines, and
 * the send budget of its WebSockets.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { RawSocket } from "../../../tools/testing/ws_client.ts";
import { until } from "../../../tools/testing/until.ts";
import { OscPeer } from "./_peer.ts";

/** Pairs an OSC device at `host` with `scopes` through /connect; its device id. */
async function pairOsc(svc: TestService, host: string, scopes: string): Promise<string> {
  const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
  const peer = OscPeer.open(svc.service.ports.osc, host);
  try {
    await peer.send("/connect", [{ type: "string", value: otp }, "Desk", scopes]);
    const paired = await peer.reply("/connect");
    assert.equal(paired.status, "ok");
    return paired.data.deviceId;
  } finally {
    await peer.close();
  }
}

/** Pairs a device over HTTP from `host` with `scopes`; its token. */
async function pairHttp(svc: TestService, host: string, scopes: string[]): Promise<string> {
  const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
  const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
    body: { otp, deviceName: "Tablet", scopes },
    localAddress: host,
  });
  assert.equal(paired.status, 200);
  return paired.body.token;
}

/** Resolves as `promise` does, or rejects after `ms` naming `what` (rather than hang). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * A raw HTTP exchange (`head` is sent as is, with `Connection: close` added):
 * the status line's code and the body, or null when closed unanswered.
 */
function rawExchange(
  port: number,
  head: string,
  localAddress = "127.0.0.1",
): Promise<{ status: number; body: string } | null> {
  const exchange = new Promise<{ status: number; body: string } | null>((resolve) => {
    const sock = net.connect({ host: "127.0.0.1", port, localAddress });
    let text = "";
    sock.on("data", (d) => (text += d.toString()));
    sock.on("error", () => {});
    sock.on("close", () => {
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? NaN);
      resolve(Number.isNaN(status) ? null : { status, body: text.split("\r\n\r\n")[1] ?? "" });
    });
    sock.on(
      "connect",
      () => sock.write(head.replace(/\r\n\r\n$/, "\r\nConnection: close\r\n\r\n")),
    );
  });
  return within(exchange, 5000, "an HTTP answer");
}

Deno.test("OSCQuery: Host and Origin are checked as on the HTTP port (no DNS rebinding)", async () => {
  const svc = await startTestService();
  const port = svc.service.ports.oscQuery!;
  try {
    const evilHost = await rawExchange(
      port,
      "GET /control/A?VALUE HTTP/1.1\r\nHost: evil.example\r\n\r\n",
    );
    assert.equal(evilHost?.status, 403);
    assert.match(evilHost!.body, /HOST_NOT_ALLOWED/);
    const evilOrigin = await rawExchange(
      port,
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://evil.example\r\n\r\n`,
    );
    assert.equal(evilOrigin?.status, 403);
    assert.match(evilOrigin!.body, /ORIGIN_NOT_ALLOWED/);
    const ok = await rawExchange(
      port,
      `GET /mute?VALUE HTTP/1.1\r\nHost: localhost:${port}\r\n\r\n`,
    );
    assert.equal(ok?.status, 200);
    assert.deepEqual(JSON.parse(ok!.body), { VALUE: [0] });

    const rebound = await RawSocket.open("127.0.0.1", port, {
      path: "/",
      headers: { origin: "http://evil.example" },
    });
    assert.equal(rebound.status, 403, "a cross-site page cannot LISTEN");
    rebound.destroy();
    const wrongHost = await RawSocket.open("127.0.0.1", port, {
      path: "/",
      headers: { host: "evil.example" },
    });
    assert.equal(wrongHost.status, 403);
    wrongHost.destroy();
  } finally {
    await svc.stop();
  }
});

Deno.test("OSCQuery: reads and LISTEN need the view scope; a control-only device is refused, a device token is taken", async () => {
  const svc = await startTestService();
  const port = svc.service.ports.oscQuery!;
  try {
    await pairOsc(svc, "127.0.0.2", "control");
    const value = await remoteRequest(port, "GET", "/control/A?VALUE");
    assert.equal(value.status, 403);
    assert.equal(value.body.error.code, "INSUFFICIENT_SCOPE");
    const namespace = await remoteRequest(port, "GET", "/");
    assert.equal(namespace.status, 403);
    const listen = await RawSocket.open("127.0.0.1", port, {
      path: "/",
      localAddress: "127.0.0.2",
    });
    assert.equal(listen.status, 403, "no LISTEN without view");
    listen.destroy();

    // Paired over HTTP: its token is presented as on the HTTP port.
    const viewer = await pairHttp(svc, "127.0.0.3", ["view"]);
    const read = await remoteRequest(port, "GET", "/mute?VALUE", {
      localAddress: "127.0.0.3",
      headers: { authorization: `Bearer ${viewer}` },
    });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, { VALUE: [0] });
    const controller = await pairHttp(svc, "127.0.0.4", ["control"]);
    const refused = await remoteRequest(port, "GET", "/mute?VALUE", {
      localAddress: "127.0.0.4",
      headers: { authorization: `Bearer ${controller}` },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, "INSUFFICIENT_SCOPE");
    const forged = await remoteRequest(port, "GET", "/mute?VALUE", {
      localAddress: "127.0.0.5",
      headers: { authorization: "Bearer not-a-token" },
    });
    assert.equal(forged.status, 401);
  } finally {
    await svc.stop();
  }
});

Deno.test("OSCQuery: revoking a device closes its open WebSocket (1008) and refuses its reads", async () => {
  const svc = await startTestService();
  const port = svc.service.ports.oscQuery!;
  try {
    const deviceId = await pairOsc(svc, "127.0.0.2", "view,control");
    const ws = await RawSocket.open("127.0.0.1", port, { path: "/", localAddress: "127.0.0.2" });
    assert.equal(ws.status, 101);
    const closed = new Promise<void>((resolve) => ws.onclose(resolve));
    ws.send({ COMMAND: "LISTEN", DATA: "/mute" });
    const revoked = await fetch(`${svc.base}/api/v1/devices/${deviceId}`, { method: "DELETE" });
    assert.equal(revoked.status, 200);
    await revoked.body?.cancel();
    await within(closed, 5000, "the revoked device's socket to close");
    assert.equal(ws.closeCode, 1008);
    assert.equal((await remoteRequest(port, "GET", "/mute?VALUE")).status, 401);
  } finally {
    await svc.stop();
  }
});

Deno.test("OSCQuery: the connection budget and header deadline of the HTTP port apply", async () => {
  const svc = await startTestService({ maxConnectionsPerAddress: 3, headerTimeoutMs: 600 });
  const port = svc.service.ports.oscQuery!;
  const held: net.Socket[] = [];
  try {
    let closed = 0;
    for (let i = 0; i < 3; i++) {
      const sock = net.connect({ host: "127.0.0.1", port, localAddress: "127.0.0.2" });
      sock.on("error", () => {});
      sock.on("close", () => closed++);
      await new Promise((resolve) => sock.once("connect", resolve));
      sock.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`); // never finished
      held.push(sock);
    }
    const refused = await rawExchange(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "127.0.0.2");
    assert.equal(refused?.status, 503);
    assert.match(refused!.body, /TOO_MANY_CONNECTIONS/);
    // A local client is served meanwhile.
    const local = await fetch(`http://127.0.0.1:${port}/mute?VALUE`);
    assert.equal(local.status, 200);
    await local.body?.cancel();
    // The clients never close them: the server did, at their header deadline.
    await until("the half-sent connections closed", () => closed === 3);
  } finally {
    for (const sock of held) sock.destroy();
    await svc.stop();
  }
});

/** The close code of the last frame of a server's WebSocket byte stream (after the 101 head). */
function lastCloseCode(bytes: Uint8Array): number | null {
  let at = 0;
  let code: number | null = null;
  while (at + 2 <= bytes.length) {
    let length = bytes[at + 1]! & 0x7f;
    let offset = at + 2;
    if (length === 126) {
      length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
      offset = at + 4;
    } else if (length === 127) {
      length = Number(new DataView(bytes.buffer, bytes.byteOffset + at + 2, 8).getBigUint64(0));
      offset = at + 10;
    }
    if ((bytes[at]! & 0x0f) === 8) code = (bytes[offset]! << 8) | bytes[offset + 1]!;
    at = offset + length;
  }
  return code;
}

Deno.test("OSCQuery: a LISTEN socket that never reads is closed with 1013 at its send budget", async () => {
  const svc = await startTestService({ oscQueryMaxBufferedBytes: 16 * 1024, wsLagCloseMs: 300 });
  const port = svc.service.ports.oscQuery!;
  // A raw client that reads its 101 and then nothing until the end.
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    // 256 addresses of 230-byte values, changed together: the kernel's buffers fill sooner,
    // and what it takes in after (it trickles) is less than what changes.
    const parameters = Array.from({ length: 256 }, (_, i) => `${i}`.padEnd(200, "p"));
    const frames = parameters.map((parameter) => {
      const listen = new TextEncoder().encode(
        JSON.stringify({ COMMAND: "LISTEN", DATA: `/param/clip:c1/${parameter}` }),
      );
      const frame = new Uint8Array(8 + listen.length);
      frame.set([0x81, 0x80 | 126, listen.length >> 8, listen.length & 255, 0, 0, 0, 0]); // no mask
      frame.set(listen, 8);
      return frame;
    });
    await conn.write(new TextEncoder().encode(
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    ));
    const head = new Uint8Array(129); // the 101 answer is exactly 129 bytes
    let got = 0;
    while (got < head.length) got += (await conn.read(head.subarray(got))) ?? head.length;
    assert.match(new TextDecoder().decode(head), /^HTTP\/1\.1 101/);
    for (const frame of frames) await conn.write(frame);
    await until("the listener", () => svc.service.oscQuery!.listenerCount === 1);
    // No wait for its LISTENs to be read: changes published before are sent nowhere, and the
    // loop goes on until the socket is closed. Its bound is a hang guard, not a speed bound: a
    // socket over its budget is closed `wsLagCloseMs` (300 ms) after, while the loop keeps it
    // over; one never closed fails here after 2 minutes, whatever the machine's load.
    const { bus, model } = svc.service.core;
    const started = performance.now();
    let value = 0;
    while (svc.service.oscQuery!.listenerCount > 0 && performance.now() - started < 120_000) {
      for (let i = 0; i < 10; i++) {
        value = (value + 1) % 1000;
        for (const parameter of parameters) {
          bus.publish({
            updateType: "clip",
            projectId: model.activeProjectId,
            data: { event: "param-changed", clipID: "c1", parameter, value: value / 1000 },
          });
        }
        bus.flush();
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(svc.service.oscQuery!.listenerCount, 0, "the socket was closed");
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(1 << 20);
    for (let n; (n = await within(conn.read(buffer), 10_000, "the end")) !== null;) {
      chunks.push(buffer.slice(0, n));
    }
    const all = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.length;
    }
    assert.equal(lastCloseCode(all), 1013);
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
    await svc.stop();
  }
});

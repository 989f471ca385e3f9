import assert from "node:assert/strict";
import { isLocalAddress } from "../../../server/auth/mod.ts";
import {
  ConnectionServer,
  type ServerWebSocket,
  upgradeWebSocket,
  type WebSocketCloseEvent,
  type WebSocketOptions,
} from "../../../server/net/mod.ts";
import { until } from "../../../tools/testing/until.ts";

/** How long a wait for the server's own close may take before the test fails: bounds a hang only. */
const HANG_MS = 60_000;

const KEY = "dGhlIHNhbXBsZSBub25jZQ==";
const UPGRADE = "GET /v1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n" +
  `Connection: Upgrade\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`;

/** A WebSocket port whose sockets echo text, with the sockets and their close events. */
function start(options: WebSocketOptions = {}, headerTimeoutMs = 2_000) {
  const sockets: ServerWebSocket[] = [];
  const closes: WebSocketCloseEvent[] = [];
  const server = ConnectionServer.listen({
    name: "test",
    hosts: ["127.0.0.1"],
    port: 0,
    limits: {
      maxConnections: 100,
      maxConnectionsPerAddress: 100,
      localReserve: 100,
      headerTimeoutMs,
      keepAliveTimeoutMs: 2_000,
    },
    isLocal: isLocalAddress,
    isWebSocket: true,
    log: () => {},
    handler: (request) => {
      if (new URL(request.url).pathname !== "/v1") return new Response("nothing", { status: 404 });
      const { socket, response } = upgradeWebSocket(request, options);
      socket.onmessage = ({ data }) =>
        socket.send(typeof data === "string" ? `echo ${data}` : data);
      socket.onclose = (event) => closes.push(event);
      sockets.push(socket);
      return response;
    },
  });
  return { server, sockets, closes };
}

/** One frame from the client: masked, with `fin` and `opcode` as given. */
function clientFrame(opcode: number, payload: Uint8Array | string, fin = true): Uint8Array {
  const data = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  const n = data.length;
  const header = n < 126
    ? [n | 0x80]
    : n < 65536
    ? [126 | 0x80, n >> 8, n & 255]
    : [127 | 0x80, 0, 0, 0, 0, n >>> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255];
  const mask = [0x37, 0xfa, 0x21, 0x3d];
  const bytes = new Uint8Array(1 + header.length + 4 + n);
  bytes[0] = (fin ? 0x80 : 0) | opcode;
  bytes.set(header, 1);
  bytes.set(mask, 1 + header.length);
  for (let i = 0; i < n; i++) bytes[1 + header.length + 4 + i] = data[i]! ^ mask[i & 3]!;
  return bytes;
}

function closePayload(code: number, reason = ""): Uint8Array {
  const text = new TextEncoder().encode(reason);
  return Uint8Array.of(code >> 8, code & 255, ...text);
}

interface Frame {
  opcode: number;
  payload: Uint8Array;
}

/** A raw client over TCP: the HTTP answer, then server frames. */
class Raw {
  conn: Deno.Conn;
  #buffer = new Uint8Array(0);
  private constructor(conn: Deno.Conn) {
    this.conn = conn;
  }
  static async open(port: number): Promise<Raw> {
    return new Raw(await Deno.connect({ hostname: "127.0.0.1", port }));
  }
  async write(bytes: Uint8Array | string): Promise<void> {
    const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
    let written = 0;
    while (written < data.length) written += await this.conn.write(data.subarray(written));
  }
  /** Reads more; false at the end of the connection. */
  async #fill(): Promise<boolean> {
    const chunk = new Uint8Array(64 * 1024);
    const n = await this.conn.read(chunk).catch(() => null);
    if (n === null) return false;
    const next = new Uint8Array(this.#buffer.length + n);
    next.set(this.#buffer);
    next.set(chunk.subarray(0, n), this.#buffer.length);
    this.#buffer = next;
    return true;
  }
  /** The HTTP answer's head (through the blank line). */
  async head(): Promise<string> {
    for (;;) {
      const text = new TextDecoder().decode(this.#buffer);
      const end = text.indexOf("\r\n\r\n");
      if (end >= 0) {
        this.#buffer = this.#buffer.slice(end + 4);
        return text.slice(0, end);
      }
      if (!(await this.#fill())) return text;
    }
  }
  /** Everything until the server closes. */
  async rest(): Promise<string> {
    while (await this.#fill()) { /* read on */ }
    return new TextDecoder().decode(this.#buffer);
  }
  async upgrade(): Promise<void> {
    await this.write(UPGRADE);
    assert.match(await this.head(), /^HTTP\/1.1 101 /);
  }
  /** The next frame, or null once the server closed the connection. */
  async frame(): Promise<Frame | null> {
    for (;;) {
      const b = this.#buffer;
      if (b.length >= 2) {
        let length = b[1]! & 0x7f;
        let offset = 2;
        if (length === 126 && b.length >= 4) {
          length = (b[2]! << 8) | b[3]!;
          offset = 4;
        } else if (length === 127 && b.length >= 10) {
          length = Number(new DataView(b.buffer, b.byteOffset + 2, 8).getBigUint64(0));
          offset = 10;
        }
        if (length < 126 || offset > 2) {
          if (b.length >= offset + length) {
            this.#buffer = b.slice(offset + length);
            return { opcode: b[0]! & 0x0f, payload: b.slice(offset, offset + length) };
          }
        }
      }
      if (!(await this.#fill())) return null;
    }
  }
  async text(): Promise<string> {
    const frame = await this.frame();
    assert.equal(frame?.opcode, 1);
    return new TextDecoder().decode(frame!.payload);
  }
  /** Reads frames up to the server's close frame: its code and reason. */
  async closeFrame(): Promise<{ code: number; reason: string }> {
    for (;;) {
      const frame = await this.frame();
      if (frame === null) throw new Error("closed without a close frame");
      if (frame.opcode !== 8) continue;
      const p = frame.payload;
      return {
        code: (p[0]! << 8) | p[1]!,
        reason: new TextDecoder().decode(p.slice(2)),
      };
    }
  }
  /** Resolves once the server has closed the TCP connection (the next read ends). */
  async ended(): Promise<void> {
    while (await this.#fill()) { /* discard */ }
  }
  close(): void {
    try {
      this.conn.close();
    } catch { /* closed */ }
  }
}

Deno.test("upgradeWebSocket() throws a TypeError for a request that did not come through the WebSocket port", () => {
  const request = new Request("http://127.0.0.1/v1", { headers: { "sec-websocket-key": KEY } });
  assert.throws(() => upgradeWebSocket(request), TypeError);
});

Deno.test("the WebSocket port answers a request head over 16 KiB 431 and a malformed one 400, then closes", async () => {
  const { server } = start();
  try {
    const big = await Raw.open(server.port);
    await big.write(`GET /v1 HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(17 * 1024)}\r\n\r\n`);
    const bigAnswer = `${await big.head()}\r\n\r\n${await big.rest()}`;
    assert.match(bigAnswer, /^HTTP\/1.1 431 /);
    assert.match(bigAnswer, /connection: close/i);
    assert.match(bigAnswer, /"code":"PAYLOAD_TOO_LARGE"/);
    big.close();

    const bad = await Raw.open(server.port);
    await bad.write("HELLO\r\n\r\n");
    const badAnswer = `${await bad.head()}\r\n\r\n${await bad.rest()}`;
    assert.match(badAnswer, /^HTTP\/1.1 400 /);
    assert.match(badAnswer, /"code":"INVALID_MESSAGE"/);
    bad.close();

    const plain = await Raw.open(server.port);
    await plain.write("GET /other HTTP/1.1\r\nHost: x\r\n\r\n");
    const plainAnswer = `${await plain.head()}\r\n\r\n${await plain.rest()}`;
    assert.match(plainAnswer, /^HTTP\/1.1 404 Not Found\r\n/);
    assert.match(plainAnswer, /content-length: 7\r\n/);
    assert.match(plainAnswer, /\r\n\r\nnothing$/);
    plain.close();
  } finally {
    await server.close();
  }
});

Deno.test("ServerWebSocket answers the handshake, and reads frames sent with the request, fragmented and masked", async () => {
  const { server } = start();
  const raw = await Raw.open(server.port);
  try {
    // The request and a first frame in one write, as an eager client sends them.
    const first = clientFrame(1, "first");
    const request = new TextEncoder().encode(UPGRADE);
    const both = new Uint8Array(request.length + first.length);
    both.set(request);
    both.set(first, request.length);
    await raw.write(both);
    const head = await raw.head();
    assert.match(head, /^HTTP\/1.1 101 Switching Protocols/);
    assert.match(head, /sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/i);
    assert.equal(await raw.text(), "echo first");
    // One message in three fragments, a ping between them, one byte at a time.
    const parts = [
      clientFrame(1, "h\u00e9", false),
      clientFrame(9, "p1"),
      clientFrame(0, "l", false),
      clientFrame(0, "lo"),
    ];
    for (const part of parts) {
      for (const byte of part) await raw.write(Uint8Array.of(byte));
    }
    const pong = await raw.frame();
    assert.equal(pong?.opcode, 10);
    assert.equal(new TextDecoder().decode(pong!.payload), "p1");
    assert.equal(await raw.text(), "echo h\u00e9llo");
    // A 70,000-byte message: the 64-bit length form both ways.
    const long = "x".repeat(70_000);
    await raw.write(clientFrame(1, long));
    assert.ok((await raw.text()) === `echo ${long}`, "the long message comes back whole");
  } finally {
    raw.close();
    await server.close();
  }
});

Deno.test("ServerWebSocket answers a client's close frame with the same code and closes the TCP connection", async () => {
  const { server, closes } = start();
  const raw = await Raw.open(server.port);
  try {
    await raw.upgrade();
    await raw.write(clientFrame(8, closePayload(1000, "bye")));
    assert.deepEqual(await raw.closeFrame(), { code: 1000, reason: "bye" });
    await raw.ended();
    await until("the close event", () => closes.length > 0, HANG_MS);
    assert.deepEqual(closes, [{ code: 1000, reason: "bye", wasClean: true }]);
    await until("no socket open", () => server.counts.open === 0, HANG_MS);
  } finally {
    raw.close();
    await server.close();
  }
});

Deno.test("ServerWebSocket.close() sends its close frame after what was queued, and ends once the client answers", async () => {
  const { server, sockets, closes } = start();
  const raw = await Raw.open(server.port);
  try {
    await raw.upgrade();
    sockets[0]!.send("last");
    sockets[0]!.close(4000, "done");
    assert.equal(await raw.text(), "last");
    assert.deepEqual(await raw.closeFrame(), { code: 4000, reason: "done" });
    await raw.write(clientFrame(8, closePayload(4000)));
    await raw.ended();
    assert.deepEqual(closes, [{ code: 4000, reason: "done", wasClean: true }]);
  } finally {
    raw.close();
    await server.close();
  }
});

Deno.test("ServerWebSocket closes with 1007 on invalid UTF-8, 1009 over maxPayload, 1002 on an unmasked frame", async () => {
  const { server } = start({ maxPayload: 1000, closeTimeoutMs: 200 });
  try {
    const cases: Array<[Uint8Array, number]> = [
      [clientFrame(1, Uint8Array.of(0xff, 0xfe, 0x41)), 1007],
      [clientFrame(1, "x".repeat(1001)), 1009],
      [Uint8Array.of(0x81, 0x02, 0x68, 0x69), 1002],
    ];
    for (const [bytes, code] of cases) {
      const raw = await Raw.open(server.port);
      await raw.upgrade();
      await raw.write(bytes);
      assert.equal((await raw.closeFrame()).code, code);
      await raw.ended(); // the client never answers: closed at the deadline
      raw.close();
    }
  } finally {
    await server.close();
  }
});

Deno.test("ServerWebSocket closes the TCP connection of a client that never reads, at the close deadline", async () => {
  const { server, sockets, closes } = start({ closeTimeoutMs: 300 });
  const raw = await Raw.open(server.port);
  try {
    await raw.upgrade();
    const socket = sockets[0]!;
    const chunk = "y".repeat(64 * 1024);
    // Far more than the socket buffers hold: the rest stays queued, counted in bufferedAmount.
    for (let i = 0; i < 200; i++) socket.send(chunk);
    assert.ok(socket.bufferedAmount > 1024 * 1024, `bufferedAmount ${socket.bufferedAmount}`);
    const started = performance.now();
    socket.close(1008, "Too slow");
    // A hang guard, not a speed bound: a server that waited for this client to read (or to
    // answer the close) would never end the connection; one that ends it at its deadline does,
    // however late a loaded machine runs the timer.
    await until("the connection ended at the close deadline", () => closes.length > 0, 120_000);
    // It waited for the client's close frame until the deadline, not less (a timer never fires
    // early; 1 ms for its rounding).
    const waited = performance.now() - started;
    assert.ok(waited >= 300 - 1, `ended after ${waited.toFixed(0)} ms, before the 300 ms deadline`);
    assert.deepEqual(closes, [{ code: 1006, reason: "", wasClean: false }]);
    assert.equal(socket.bufferedAmount, 0);
    await until("no socket open", () => server.counts.open === 0, HANG_MS);
    // The client, reading at last, gets what the kernel held, then the end of the connection.
    await raw.ended();
  } finally {
    raw.close();
    await server.close();
  }
});

Deno.test("ServerWebSocket ends the connection of a peer that sends on after its close frame, without waiting for the close deadline (RFC 6455 7.1.7)", async () => {
  // A close deadline of an hour: only the peer's bytes after the close can end the connection.
  const { server, sockets, closes } = start({ closeTimeoutMs: 3_600_000 });
  const raw = await Raw.open(server.port);
  try {
    await raw.upgrade();
    sockets[0]!.close(1008, "Too slow");
    // The flood of probe slow_ws_client: small frames, as fast as the connection takes them.
    const frame = clientFrame(1, '{"type":"ping","id":1}');
    const burst = new Uint8Array(frame.length * 2000);
    for (let i = 0; i < 2000; i++) burst.set(frame, i * frame.length);
    const most = 64 * 1024 * 1024;
    let sent = 0;
    // A server that read (and parsed) on until its deadline would take all 64 MiB.
    while (sent < most && closes.length === 0) {
      const wrote = await raw.write(burst).then(() => true, () => false);
      if (!wrote) break;
      sent += burst.length;
    }
    await until("the connection ended", () => closes.length > 0, 120_000);
    assert.ok(sent < most, `the server read all ${sent} bytes sent after its close`);
    assert.deepEqual(closes, [{ code: 1006, reason: "", wasClean: false }]);
  } finally {
    raw.close();
    await server.close();
  }
});

Deno.test("ServerWebSocket pings a silent client, and drops one that stays silent", async () => {
  const { server, closes } = start({ idleTimeoutMs: 100 });
  const raw = await Raw.open(server.port);
  try {
    await raw.upgrade();
    const ping = await raw.frame();
    assert.equal(ping?.opcode, 9);
    await raw.ended();
    assert.equal(closes[0]?.code, 1006);
  } finally {
    raw.close();
    await server.close();
  }
});

Deno.test("the WebSocket port holds one descriptor per client", async () => {
  if (Deno.build.os !== "linux") return;
  // Listed by a child process: reading /proc/self/fd needs every permission.
  const count = async () => {
    const { stdout } = await new Deno.Command("ls", { args: [`/proc/${Deno.pid}/fd`] }).output();
    return new TextDecoder().decode(stdout).trim().split("\n").length;
  };
  const { server } = start();
  const clients: Raw[] = [];
  try {
    const before = await count();
    for (let i = 0; i < 50; i++) {
      const raw = await Raw.open(server.port);
      await raw.upgrade();
      clients.push(raw);
    }
    // The clients run in this process too: one descriptor each, and one for the server side.
    const added = (await count()) - before;
    assert.ok(added <= 50 * 2 + 5, `${added} descriptors for 50 clients`);
  } finally {
    clients.forEach((c) => c.close());
    await server.close();
  }
});

Deno.test("FrameReader reports when it holds views of a chunk (an unfinished frame), so the read buffer is reused only when it does not", async () => {
  const { FrameReader } = await import("../../../server/net/ws_receiver.ts");
  const messages: unknown[] = [];
  const reader = new FrameReader({ maxPayload: 1000, maxFragments: 10, maxBufferedChunks: 10 }, {
    message: (data) => messages.push(data),
    ping: () => {},
    close: () => {},
    error: (code) => messages.push(code),
  });
  const whole = clientFrame(1, "whole");
  // A ws release that renamed the fields this relies on fails here (reads would then allocate).
  assert.equal(reader.write(whole.slice()), false);
  const split = clientFrame(1, "split");
  assert.equal(reader.write(split.slice(0, 4)), true, "header and part of the mask");
  assert.equal(reader.write(split.slice(4, 6)), true, "the mask, no payload yet");
  assert.equal(reader.write(split.slice(6)), false);
  assert.equal(reader.write(clientFrame(1, "frag", false)), true, "a fragment is kept");
  assert.equal(reader.write(clientFrame(0, "ment")), false);
  assert.deepEqual(messages, ["whole", "split", "fragment"]);
});

Deno.test("the WebSocket port closes a connection whose request head does not end by the header deadline", async () => {
  const { server } = start({}, 100);
  const raw = await Raw.open(server.port);
  try {
    await raw.write("GET /v1 HTTP/1.1\r\nHost: x\r\n"); // never ends the head
    assert.equal(await raw.rest(), "");
    await until("no socket open", () => server.counts.open === 0, HANG_MS);
  } finally {
    raw.close();
    await server.close();
  }
});

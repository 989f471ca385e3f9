import assert from "node:assert/strict";
import net from "node:net";
import { isLocalAddress } from "../../../server/auth/mod.ts";
import {
  type ConnectionLimits,
  ConnectionServer,
  LINGER_MS,
  type PeerHandler,
  plainAnswer,
  upgradeWebSocket,
} from "../../../server/net/mod.ts";
import { serveOnConnection } from "../../../server/net/serve_connection.ts";
import { until } from "../../../tools/testing/until.ts";

const LIMITS: ConnectionLimits = {
  maxConnections: 4,
  maxConnectionsPerAddress: 2,
  localReserve: 2,
  headerTimeoutMs: 5_000,
  keepAliveTimeoutMs: 5_000,
};

function start(
  limits: Partial<ConnectionLimits> = {},
  handler: PeerHandler = (_req, peer) => Response.json({ address: peer.address }),
  hosts = ["127.0.0.1"],
): ConnectionServer {
  return ConnectionServer.listen({
    name: "test",
    hosts,
    port: 0,
    limits: { ...LIMITS, ...limits },
    isLocal: isLocalAddress,
    handler,
    log: () => {},
  });
}

/**
 * Resolves once the server's keep-alive sweep has run with its clock (`server.now`, set at
 * each sweep) `ms` past where it is now: the sweeps had their chance, however busy the machine.
 */
async function sweptPast(server: ConnectionServer, ms: number): Promise<void> {
  const from = server.now;
  await until(`the sweep's clock ${ms} ms on`, () => server.now - from >= ms);
}

/** A raw TCP client: everything it receives, and when the server closes it. */
class Raw {
  received = "";
  closed: Promise<void>;
  sock: net.Socket;
  constructor(port: number, localAddress?: string, host = "127.0.0.1") {
    this.sock = net.connect({ host, port, ...(localAddress ? { localAddress } : {}) });
    this.sock.on("data", (d) => (this.received += d.toString()));
    this.sock.on("error", () => {});
    this.closed = new Promise((resolve) => this.sock.on("close", () => resolve()));
  }
  connected(): Promise<void> {
    return new Promise((resolve) => this.sock.once("connect", () => resolve()));
  }
  send(text: string): void {
    this.sock.write(text);
  }
  /** Resolves once `text` has been received. */
  async waitFor(text: string): Promise<void> {
    while (!this.received.includes(text)) {
      await new Promise((resolve) => this.sock.once("data", resolve).once("close", resolve));
      if (this.sock.destroyed && !this.received.includes(text)) {
        throw new Error(`closed before "${text}": ${this.received}`);
      }
    }
  }
  destroy(): void {
    this.sock.destroy();
  }
}

const GET = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

Deno.test("serveOnConnection() finds Deno's per-connection HTTP server (a Deno upgrade that drops it fails here)", () => {
  assert.equal(typeof serveOnConnection(), "function");
});

Deno.test("ConnectionServer refuses a remote address over its budget with 503 TOO_MANY_CONNECTIONS and serves the others", async () => {
  const server = start();
  const open: Raw[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const c = new Raw(server.port, "127.0.0.2");
      await c.connected();
      open.push(c);
    }
    const third = new Raw(server.port, "127.0.0.2");
    await third.closed;
    assert.match(third.received, /^HTTP\/1.1 503/);
    assert.match(third.received, /"code":"TOO_MANY_CONNECTIONS"/);
    assert.match(third.received, /retry-after: 1/i);
    // Another remote address is still admitted, and sees its own address.
    const other = new Raw(server.port, "127.0.0.3");
    other.send(GET);
    await other.waitFor('"address":"127.0.0.3"');
    other.destroy();
    assert.equal(server.refused, 1);
  } finally {
    open.forEach((c) => c.destroy());
    await server.close();
  }
});

Deno.test("ConnectionServer keeps a reserve for local clients once remote ones fill the port", async () => {
  const server = start({ maxConnectionsPerAddress: 4 });
  const open: Raw[] = [];
  try {
    for (let i = 0; i < 4; i++) {
      const c = new Raw(server.port, "127.0.0.2");
      await c.connected();
      open.push(c);
    }
    const remote = new Raw(server.port, "127.0.0.4");
    await remote.closed;
    assert.match(remote.received, /^HTTP\/1.1 503/);
    // Local clients get the reserve: two more connections, served.
    for (let i = 0; i < 2; i++) {
      const local = new Raw(server.port);
      local.send(GET);
      await local.waitFor('"address":"127.0.0.1"');
      open.push(local);
    }
    const beyond = new Raw(server.port);
    await beyond.closed;
    assert.match(beyond.received, /^HTTP\/1.1 503/);
    assert.deepEqual(server.counts, { open: 6, remote: 4 });
  } finally {
    open.forEach((c) => c.destroy());
    await server.close();
  }
});

Deno.test("ConnectionServer closes a connection that does not finish its headers in time, and frees its slot", async () => {
  const server = start({ headerTimeoutMs: 100 });
  try {
    const slow = new Raw(server.port, "127.0.0.2");
    slow.send("GET / HTTP/1.1\r\nHost: x\r\n"); // never ends the headers
    await slow.closed;
    assert.equal(slow.received, "");
    await until("the slot to be freed", () => server.counts.open === 0);
    assert.deepEqual(server.counts, { open: 0, remote: 0 });
  } finally {
    await server.close();
  }
});

Deno.test("ConnectionServer closes a keep-alive connection idle past its timeout, not one whose handler is busy", async () => {
  let release = () => {};
  const busy = new Promise<void>((resolve) => (release = resolve));
  const server = start(
    { headerTimeoutMs: 100, keepAliveTimeoutMs: 100 },
    async (req) => {
      if (new URL(req.url).pathname === "/busy") await busy;
      return new Response("done");
    },
  );
  try {
    const idle = new Raw(server.port);
    idle.send(GET);
    await idle.waitFor("done");
    await idle.closed; // closed by the keep-alive sweep, with nothing more sent

    const working = new Raw(server.port);
    working.send("GET /busy HTTP/1.1\r\nHost: x\r\n\r\n");
    // Several sweeps pass while the handler works, by the sweep's own clock: the connection stays.
    let isClosed = false;
    void working.closed.then(() => isClosed = true);
    await sweptPast(server, 350);
    assert.equal(isClosed, false, "the busy connection was closed");
    release();
    await working.waitFor("done");
    working.destroy();
  } finally {
    await server.close();
  }
});

/**
 * A server whose `/events` answers an event stream (its controller is `events()`), any other
 * path "done"; and a client that opened the stream.
 */
async function eventStream(limits: Partial<ConnectionLimits>, type = "text/event-stream") {
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const server = start(limits, (req) => {
    if (new URL(req.url).pathname !== "/events") return new Response("done");
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    return new Response(body, { headers: { "content-type": type } });
  });
  const stream = new Raw(server.port);
  stream.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
  await stream.waitFor(type);
  return { server, stream, events: () => controller! };
}

Deno.test("ConnectionServer keeps a connection while its event stream is sent, and times it out once the stream ends", async () => {
  const { server, stream, events } = await eventStream({
    headerTimeoutMs: 100,
    keepAliveTimeoutMs: 100,
  });
  try {
    // An idle connection opened after the stream's answer: once the sweep has closed it, the
    // stream's connection is past the same deadline, and still open.
    const idle = new Raw(server.port);
    idle.send(GET);
    await idle.waitFor("done");
    await idle.closed;
    events().enqueue(new TextEncoder().encode("data: still here\n\n"));
    await stream.waitFor("still here");
    events().close();
    await stream.closed; // idle once the stream ended: the sweep closes it
  } finally {
    await server.close();
  }
});

Deno.test("ConnectionServer takes an answer marked plain as answered without reading its headers; an unmarked one is looked at", async () => {
  // Each answer counts the reads of its `headers` (the engine sends it from its inner state).
  let reads = 0;
  const counted = (response: Response) => {
    const headers = response.headers;
    Object.defineProperty(response, "headers", { get: () => (reads++, headers) });
    return response;
  };
  const server = start(
    {},
    (req) =>
      new URL(req.url).pathname === "/plain"
        ? plainAnswer(counted(Response.json({ ok: true })))
        : counted(Response.json({ ok: true })),
  );
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const plain = await fetch(`${base}/plain`);
    assert.deepEqual(await plain.json(), { ok: true });
    assert.equal(plain.headers.get("content-type"), "application/json");
    assert.equal(reads, 0);
    const unmarked = await fetch(`${base}/other`);
    assert.deepEqual(await unmarked.json(), { ok: true });
    assert.ok(reads > 0, "an unmarked answer's type is read (the streamed answers' check)");
  } finally {
    await server.close();
  }
});

Deno.test("ConnectionServer keeps a connection while any streamed answer (a show file's zip) is sent past the keep-alive timeout, and gets all of it", async () => {
  const { server, stream, events } = await eventStream(
    { headerTimeoutMs: 100, keepAliveTimeoutMs: 100 },
    "application/zip",
  );
  try {
    // Once the sweep has closed an idle connection opened later, the zip's is past the deadline.
    const idle = new Raw(server.port);
    idle.send(GET);
    await idle.waitFor("done");
    await idle.closed;
    events().enqueue(new TextEncoder().encode("zip part two"));
    await stream.waitFor("zip part two");
    events().enqueue(new TextEncoder().encode("zip end"));
    events().close();
    await stream.waitFor("zip end");
    await stream.closed; // idle once the answer ended: the sweep closes it
  } finally {
    await server.close();
  }
});

Deno.test("ConnectionServer closes a connection at once when its event stream fails while its client neither reads nor closes", async () => {
  // Keep-alive longer than the test: only the failed stream may close the connection.
  const { server, stream, events } = await eventStream({
    headerTimeoutMs: 100,
    keepAliveTimeoutMs: 600_000,
  });
  try {
    stream.sock.pause(); // never reads again, never closes
    // More than the socket buffers hold: the engine is left with bytes it cannot write.
    const chunk = new TextEncoder().encode(`data: ${"x".repeat(64 * 1024)}\n\n`);
    for (let i = 0; i < 256; i++) events().enqueue(chunk);
    // The engine takes what it can: the socket buffers full, it waits to write. It has stopped
    // once a stretch of the server's own clock (its sweeps, which run on the same event loop as
    // the engine) passes without it taking a chunk: a busy machine slows both alike.
    await until("the engine to stop taking", async () => {
      const before = events().desiredSize;
      await sweptPast(server, 100);
      return events().desiredSize === before;
    });
    events().error(new Error("its client does not read")); // as the MCP stream budget does
    await until("the server to close the connection", () => server.counts.open === 0, 5000);
    stream.destroy();
  } finally {
    await server.close();
  }
});

Deno.test("ConnectionServer applies the header deadline to a body marked as being read", async () => {
  const server = start({ headerTimeoutMs: 100, keepAliveTimeoutMs: 60_000 }, async (req, peer) => {
    peer.readingBody(true);
    try {
      return new Response(await req.text());
    } finally {
      peer.readingBody(false);
    }
  });
  try {
    const trickle = new Raw(server.port, "127.0.0.2");
    trickle.send("POST / HTTP/1.1\r\nHost: x\r\ncontent-length: 100\r\n\r\nabc");
    await trickle.closed;
    assert.equal(trickle.received, "");
  } finally {
    await server.close();
  }
});

Deno.test("ConnectionServer serves IPv4 and IPv6 on one port: [::1] and 127.0.0.1 are local, mapped addresses are plain IPv4", async () => {
  const server = start(
    {},
    (_req, peer) => Response.json({ address: peer.address, isLocal: peer.isLocal }),
    ["::", "0.0.0.0"],
  );
  try {
    const v6 = await fetch(`http://[::1]:${server.port}/`).then((r) => r.json());
    assert.deepEqual(v6, { address: "::1", isLocal: true });
    const v4 = await fetch(`http://127.0.0.1:${server.port}/`).then((r) => r.json());
    assert.deepEqual(v4, { address: "127.0.0.1", isLocal: true });
    const remote = new Raw(server.port, "127.0.0.2");
    remote.send(GET);
    await remote.waitFor('{"address":"127.0.0.2","isLocal":false}');
    remote.destroy();
  } finally {
    await server.close();
  }
});

Deno.test("ConnectionServer.listen() binds every host on the port the first one got", async () => {
  const server = start({}, undefined, ["127.0.0.1", "::1"]);
  try {
    assert.deepEqual(server.addresses, [`127.0.0.1:${server.port}`, `[::1]:${server.port}`]);
    const answer = await fetch(`http://[::1]:${server.port}/`).then((r) => r.json());
    assert.equal(answer.address, "::1");
  } finally {
    await server.close();
  }
});

Deno.test("ConnectionServer closes a connection soon after an error answer that says Connection: close, though its body never ends", async () => {
  const server = start(
    { keepAliveTimeoutMs: 60_000 },
    () =>
      Response.json({ error: { code: "PAYLOAD_TOO_LARGE" } }, {
        status: 413,
        headers: { connection: "close" },
      }),
  );
  try {
    const client = new Raw(server.port, "127.0.0.2");
    client.send("POST / HTTP/1.1\r\nHost: x\r\ncontent-length: 1000000\r\n\r\nabc");
    await client.closed;
    assert.match(client.received, /^HTTP\/1.1 413/);
  } finally {
    await server.close();
  }
});

Deno.test("ConnectionServer keeps a Connection: close answer's connection open LINGER_MS after the answer, however long since its last sweep", async () => {
  // The sweep runs every second here (a fifth of the 5 s deadlines, at most 1 s); its clock
  // (`server.now`) is as old as the last sweep. The handler answers when that clock is 900 ms
  // old: a linger counted from it would end 100 ms after the answer, before a busy machine may
  // have sent it (a 408 lost that way in tests/server/routes/upload_test.ts).
  let answeredAt = 0;
  const server = start({}, async () => {
    await until("the sweep's clock 900 ms old", () => performance.now() - server.now >= 900);
    answeredAt = performance.now();
    return Response.json({ error: { code: "REQUEST_TIMEOUT" } }, {
      status: 408,
      headers: { connection: "close" },
    });
  });
  try {
    const client = new Raw(server.port, "127.0.0.2");
    client.send("POST / HTTP/1.1\r\nHost: x\r\ncontent-length: 1000000\r\n\r\nabc");
    await client.closed;
    const lingered = performance.now() - answeredAt;
    assert.match(client.received, /^HTTP\/1.1 408/);
    // A lower bound only: a slow machine closes later, never sooner.
    assert.ok(lingered >= LINGER_MS, `closed ${lingered.toFixed(0)} ms after the answer`);
  } finally {
    await server.close();
  }
});

Deno.test("ConnectionServer.close() right after clients left is safe", async () => {
  for (let i = 0; i < 20; i++) {
    const server = start();
    const client = new Raw(server.port);
    client.send(GET);
    await client.waitFor("address");
    client.destroy();
    await server.close();
  }
});

Deno.test("ConnectionServer with isWebSocket carries a WebSocket both ways, counted and timed like any connection", async () => {
  const server = ConnectionServer.listen({
    name: "test",
    hosts: ["127.0.0.1"],
    port: 0,
    limits: { ...LIMITS, keepAliveTimeoutMs: 100, headerTimeoutMs: 100 },
    isLocal: isLocalAddress,
    isWebSocket: true,
    log: () => {},
    handler: (request, peer) => {
      const { socket, response } = upgradeWebSocket(request);
      socket.onmessage = (event) => socket.send(`${peer.address} says ${event.data}`);
      return response;
    },
  });
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/`);
    await new Promise((resolve) => (ws.onopen = resolve));
    // Past the keep-alive deadline: an upgraded connection is not swept.
    await sweptPast(server, 300);
    ws.send("hello");
    const echo = await new Promise((resolve) => (ws.onmessage = (e) => resolve(e.data)));
    assert.equal(echo, "127.0.0.1 says hello");
    assert.equal(server.counts.open, 1);
    ws.close();
    await new Promise((resolve) => (ws.onclose = resolve));
  } finally {
    await server.close();
  }
});

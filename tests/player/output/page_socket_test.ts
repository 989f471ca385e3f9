/**
 * The output page's socket, on a real output server, from plain WebSocket clients: only a
 * client with the secret of now gets in; one page at a time; a page's forged `gl-lost`
 * restarts nothing until its reports show it draws nothing; garbage, floods and oversized
 * messages close the page (1008, 1009) with one log line a minute at most; only the page
 * that records writes the recording.
 */
import assert from "node:assert/strict";
import { serveOutput } from "../../../player/output/server.ts";
import {
  describeClose,
  GL_LOST_REPORTS,
  PageSocket,
  type Report,
} from "../../../player/output/page_socket.ts";
import { until } from "../../../tools/testing/until.ts";
import { SocketFaultLog } from "../../../player/output/socket_log.ts";
import { PAGE_SOCKET_BOUNDS, PAGE_TAKEN } from "../../../protocol/output.ts";
import { CLOSE_POLICY, CLOSE_TOO_BIG } from "../../../protocol/socket_bounds.ts";
import { type Client, openClient } from "./_socket_client.ts";

/**
 * A server with a `PageSocket` as the output wires it, a virtual clock, what happened;
 * `isRace`: the server does not ask whether a page has the socket (two pages upgrading at once).
 */
function pageServer(options: { isRace?: boolean } = {}) {
  let now = 0;
  const lines: string[] = [];
  const seen = {
    glFails: 0,
    hellos: 0,
    reports: 0,
    chunks: [] as number[],
    opened: [] as number[],
    closed: [] as string[],
  };
  // Its flush timer never fires: the lines are those the faults say.
  const faults = new SocketFaultLog((line) => lines.push(line), () => now, () => () => {});
  const page = new PageSocket({
    opened: (connection) => seen.opened.push(connection),
    progress: () => {},
    hello: () => seen.hellos++,
    now: () => 42,
    report: () => seen.reports++,
    fault: () => {},
    compileError: () => {},
    chunk: (_bytes, connection) => seen.chunks.push(connection),
    settle: () => {},
    glFails: () => seen.glFails++,
    closed: (how) => seen.closed.push(`${how.code} ${how.reason}`),
  }, { faults, now: () => now });
  /** The close codes the server sent (a client still sending when it closes may see 0). */
  const closes: number[] = [];
  const server = serveOutput({
    media: () => null,
    connected: (socket) => {
      const close = socket.close.bind(socket);
      socket.close = (code?: number, reason?: string) => {
        closes.push(code ?? 1005);
        close(code, reason);
      };
      page.connected(socket);
    },
    editorConnected: (socket) => socket.close(),
    isEditorOpen: () => false,
    isTaken: (path) => !options.isRace && path === "ws" && page.isTaken,
    refused: (kind, reason) => faults.note(kind, reason),
  });
  const secret = server.rotateSecret();
  const origin = new URL(server.url).origin;
  const clients: Client[] = [];
  return {
    page,
    server,
    faults,
    secret,
    lines,
    seen,
    closes,
    advance: (ms: number) => now += ms,
    /** A client with the secret of now, or `options.secret` (undefined: none). */
    async open(options: { secret?: string | undefined } = { secret }): Promise<Client> {
      const client = await openClient(`${server.url}ws`, { origin, secret: options.secret });
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients) c.socket.close();
      await Promise.all(clients.map((c) => c.closed));
      page.close();
      await server.close();
    },
  };
}

Deno.test("PageSocket: a page's socket that closes is said with its code and reason; one closed for a fault or by the output is not", async () => {
  const s = pageServer();
  try {
    const first = await s.open();
    first.socket.close(4000, "going");
    await first.closed;
    await until("the close heard", () => s.seen.closed.length === 1);
    assert.deepEqual(s.seen.closed, ["4000 going"]);
    assert.deepEqual(s.page.lastClose, {
      connection: 1,
      how: { code: 4000, reason: "going", isFault: false },
    });
    assert.deepEqual(s.lines, ['Output: the page\'s socket #1 closed (code 4000, "going")']);
    const noFrame = { code: 1006, reason: "", isFault: false };
    assert.equal(describeClose(noFrame), "code 1006, no close frame");
    const second = await s.open();
    s.page.close(); // the output stops
    await second.closed;
    const third = await s.open();
    third.socket.send("not json"); // closed for a fault: the fault line says it
    await third.closed;
    await until("the third close heard", () => s.seen.closed.length === 2);
    assert.equal(s.lines.length, 2, s.lines.join("\n"));
    assert.match(s.lines[1]!, /^Output: 1 page socket closed or refused \(not valid 1\)/);
  } finally {
    await s.close();
  }
});

function report(frames: number): Report {
  return {
    type: "report",
    seq: 1,
    frames,
    dropped: 0,
    offset: 0,
    driftMs: 0,
    firstFrames: [],
    visibility: "visible",
    renderScale: 1,
    scaleReason: null,
  };
}

/** Sends `message` and waits for the pong of a ping sent after it (the server handled both). */
async function sendAndSync(client: Client, ...messages: unknown[]): Promise<void> {
  for (const m of messages) client.socket.send(typeof m === "string" ? m : JSON.stringify(m));
  const t0 = Math.random();
  client.socket.send(JSON.stringify({ type: "ping", t0 }));
  // The cap bounds a hang only.
  await until(
    "the pong",
    () => client.received.some((r) => (r as { t0?: number }).t0 === t0),
    60_000,
  );
}

Deno.test("PageSocket: only a client with the secret of now gets in, the subprotocol answered", async () => {
  const s = pageServer();
  try {
    assert.equal((await s.open({})).isOpen, false, "no secret");
    assert.equal((await s.open({ secret: "0".repeat(64) })).isOpen, false, "a wrong secret");
    const old = await s.open();
    assert.equal(old.isOpen, true, "the secret of now");
    s.server.rotateSecret();
    assert.equal((await s.open({ secret: s.secret })).isOpen, false, "the secret before");
    await sendAndSync(old); // a page connected before keeps its socket
    assert.deepEqual(s.seen.opened, [1]);
    assert.equal(s.lines.length, 1, s.lines.join("\n"));
    assert.match(
      s.lines[0]!,
      /^Output: 1 page socket closed or refused \(refused 1\), the last: the ws socket refused: no secret/,
    );
  } finally {
    await s.close();
  }
});

Deno.test("PageSocket: a forged gl-lost restarts nothing; gl-lost and reports of no frame do", async () => {
  const s = pageServer();
  try {
    const client = await s.open();
    assert.equal(client.isOpen, true);
    assert.equal(client.socket.protocol, `cueport.${s.secret}`);
    await sendAndSync(client, { type: "gl-lost" }, { type: "gl-lost" }, report(30), report(0));
    await sendAndSync(client, report(0), report(0), report(0), report(0));
    assert.equal(s.seen.glFails, 0, "a frame drawn after the claim says the GL works");
    await sendAndSync(client, { type: "gl-lost" });
    for (let i = 1; i < GL_LOST_REPORTS; i++) await sendAndSync(client, report(0));
    assert.equal(s.seen.glFails, 0, "not before the reports confirm it");
    await sendAndSync(client, report(0));
    assert.equal(s.seen.glFails, 1);
  } finally {
    await s.close();
  }
});

Deno.test("PageSocket: 3000 garbage frames close the page at the first, one log line for many pages", async () => {
  const s = pageServer();
  try {
    const first = await s.open();
    for (let i = 0; i < 3000; i++) first.socket.send(`garbage ${i}`);
    await first.closed;
    assert.deepEqual(s.closes, [CLOSE_POLICY]);
    for (let i = 0; i < 20; i++) {
      const next = await s.open();
      next.socket.send(JSON.stringify({ type: "report", frames: "many" }));
      assert.equal((await next.closed).code, CLOSE_POLICY);
    }
    assert.equal(s.lines.length, 1, s.lines.join("\n"));
    assert.match(
      s.lines[0]!,
      /not valid 1\), the last: the output page's socket #1: a text message that is not JSON/,
    );
    s.advance(60_000);
    const last = await s.open();
    last.socket.send("{}");
    await last.closed;
    assert.equal(s.lines.length, 2);
    assert.match(
      s.lines[1]!,
      /^Output: 21 page sockets closed or refused \(not valid 21\), the last: .*#22: not a page message \(type: /,
    );
  } finally {
    await s.close();
  }
});

Deno.test("PageSocket: a flood of valid messages is closed 1008, a message past its size 1009", async () => {
  const s = pageServer();
  try {
    const flood = await s.open();
    for (let i = 0; i < 3000; i++) flood.socket.send(JSON.stringify({ type: "ping", t0: i }));
    await flood.closed;
    assert.deepEqual(s.closes, [CLOSE_POLICY]);
    assert.match(s.lines[0]!, /\(too fast 1\), the last: .*#1: more than 2000 messages at once/);
    const pongs = flood.received.length;
    assert.ok(pongs <= PAGE_SOCKET_BOUNDS.burstMessages, `${pongs} answered`);
    // Sustained within the rate, on the virtual clock: never closed.
    const steady = await s.open();
    for (let second = 0; second < 30; second++) {
      s.advance(1000);
      const batch = Array.from({ length: 150 }, (_, i) => ({ type: "ping", t0: i }));
      await sendAndSync(steady, ...batch);
    }
    steady.socket.send(new Uint8Array(PAGE_SOCKET_BOUNDS.maxBinaryBytes + 1));
    assert.deepEqual(await steady.closed, { code: CLOSE_TOO_BIG, reason: "too large" });
    assert.equal(s.lines.length, 1, "one line a minute");
  } finally {
    await s.close();
  }
});

Deno.test("PageSocket: a second page is refused at the upgrade while the first is connected, which keeps the output", async () => {
  const s = pageServer();
  try {
    const first = await s.open();
    const second = await s.open();
    assert.equal(second.isOpen, false);
    await sendAndSync(first, { type: "hello", userAgent: "test", gl: "webgl2" });
    assert.deepEqual([s.seen.opened, s.seen.hellos], [[1], 1]);
    assert.deepEqual(Object.fromEntries(s.faults.totals), { "second page": 1 });
    assert.match(s.lines[0]!, /\(second page 1\), the last: the ws socket refused: another page/);
    first.socket.close();
    await first.closed;
    await until("the page no longer taken", () => !s.page.isTaken, 60_000); // bounds a hang only
    assert.equal((await s.open()).isOpen, true, "once the first is gone");
  } finally {
    await s.close();
  }
});

Deno.test("PageSocket: a second page that upgraded with the first is closed once open, the first keeps the output", async () => {
  const s = pageServer({ isRace: true });
  try {
    const first = await s.open();
    first.socket.send(new Uint8Array([1, 2, 3]));
    const second = await s.open();
    assert.equal((await second.closed).code, PAGE_TAKEN);
    await sendAndSync(first, { type: "hello", userAgent: "test", gl: "webgl2" });
    assert.deepEqual([s.seen.opened, s.seen.hellos, s.seen.chunks], [[1], 1, [1]]);
    first.socket.close();
    await first.closed;
    const third = await s.open();
    third.socket.send(new Uint8Array([4]));
    await sendAndSync(third);
    assert.deepEqual([s.seen.opened, s.seen.chunks], [[1, 2], [1, 2]], "its chunks are its own");
  } finally {
    await s.close();
  }
});

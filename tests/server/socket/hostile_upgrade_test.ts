import assert from "node:assert/strict";
import net from "node:net";
import { startTestService } from "../../../tools/testing/service.ts";

/** The first answer to an upgrade request: status, head, and the JSON body if there is one. */
interface UpgradeAnswer {
  status: number | null;
  head: string;
  // deno-lint-ignore no-explicit-any
  body: any;
}

const KEY = "dGhlIHNhbXBsZSBub25jZQ==";

/** An upgrade request to `/v1` with `change` applied to its headers. */
function upgradeRequest(
  port: number,
  change: (headers: Record<string, string>) => void = () => {},
  method = "GET",
): string {
  const headers: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    upgrade: "websocket",
    connection: "Upgrade",
    "sec-websocket-key": KEY,
    "sec-websocket-version": "13",
  };
  change(headers);
  return `${method} /v1 HTTP/1.1\r\n` +
    Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n";
}

/** Sends `text` from 127.0.0.2 and resolves with the first answer (a 101 ends at its head). */
function upgrade(port: number, text: string): Promise<UpgradeAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, localAddress: "127.0.0.2" });
    let received = "";
    const parse = (): UpgradeAnswer | null => {
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) return null;
      const head = received.slice(0, end);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? NaN);
      if (status === 101) return { status, head, body: null };
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
      const rest = received.slice(end + 4);
      if (!(rest.length >= length)) return null;
      const isJson = /content-type: *application\/json/i.test(head);
      return { status, head, body: isJson ? JSON.parse(rest.slice(0, length)) : rest };
    };
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      received += chunk;
      const answer = parse();
      if (answer) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(parse() ?? { status: null, head: received, body: null }));
    socket.on("connect", () => socket.write(text));
  });
}

/** What the process writes to stderr (the service's log, Deno's own 500 reports) while `fn` runs. */
async function stderrDuring(fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const writeSync = Deno.stderr.writeSync;
  const consoleError = console.error;
  const decoder = new TextDecoder();
  Deno.stderr.writeSync = (bytes: Uint8Array) => {
    lines.push(decoder.decode(bytes));
    return writeSync.call(Deno.stderr, bytes);
  };
  console.error = (...args: unknown[]) => {
    lines.push(args.map(String).join(" "));
    consoleError(...args);
  };
  try {
    await fn();
  } finally {
    Deno.stderr.writeSync = writeSync;
    console.error = consoleError;
  }
  return lines;
}

Deno.test("SocketServer.handle() answers a broken upgrade request 400 with the JSON error body", async () => {
  const svc = await startTestService();
  const port = svc.service.ports.ws;
  try {
    const cases: Array<[string, (h: Record<string, string>) => void, string, RegExp]> = [
      [
        "no key",
        (h) => delete h["sec-websocket-key"],
        "Sec-WebSocket-Key",
        /^Invalid WebSocket upgrade: Sec-WebSocket-Key is missing/,
      ],
      [
        "an empty key",
        (h) => (h["sec-websocket-key"] = ""),
        "Sec-WebSocket-Key",
        /^Invalid WebSocket upgrade: Sec-WebSocket-Key must be 16 bytes in base64, got ""/,
      ],
      [
        "a key that is not base64",
        (h) => (h["sec-websocket-key"] = "!!!"),
        "Sec-WebSocket-Key",
        /got "!!!"/,
      ],
      [
        "a 5000-byte key",
        (h) => (h["sec-websocket-key"] = "a".repeat(5000)),
        "Sec-WebSocket-Key",
        /must be 16 bytes in base64, got "a{20}\.\.\."/,
      ],
      [
        "no Connection header",
        (h) => delete h.connection,
        "Connection",
        /^Invalid WebSocket upgrade: the Connection header must include "upgrade"/,
      ],
      [
        "Connection: keep-alive",
        (h) => (h.connection = "keep-alive"),
        "Connection",
        /got "keep-alive"/,
      ],
      [
        "version 8",
        (h) => (h["sec-websocket-version"] = "8"),
        "Sec-WebSocket-Version",
        /^Invalid WebSocket upgrade: Sec-WebSocket-Version must be 13, got "8"/,
      ],
      [
        "no version",
        (h) => delete h["sec-websocket-version"],
        "Sec-WebSocket-Version",
        /must be 13, got nothing/,
      ],
    ];
    const logs = await stderrDuring(async () => {
      for (const [name, change, header, message] of cases) {
        const answer = await upgrade(port, upgradeRequest(port, change));
        assert.equal(answer.status, 400, `${name}: ${answer.head}`);
        assert.equal(answer.body.error.code, "INVALID_MESSAGE", name);
        assert.match(answer.body.error.message, message, name);
        assert.deepEqual(answer.body.error.details, { header }, name);
        if (header === "Sec-WebSocket-Version") {
          assert.match(answer.head, /sec-websocket-version: 13/i, name);
        }
      }
    });
    assert.deepEqual(logs, []);
  } finally {
    await svc.stop();
  }
});

Deno.test("SocketServer.handle() refuses an upgrade by another method than GET with 405", async () => {
  const svc = await startTestService();
  const port = svc.service.ports.ws;
  try {
    const answer = await upgrade(port, upgradeRequest(port, () => {}, "POST"));
    assert.equal(answer.status, 405);
    assert.match(answer.head, /allow: GET/i);
    assert.deepEqual(answer.body.error, {
      code: "METHOD_NOT_ALLOWED",
      message: "POST is not allowed on /v1: use GET",
    });
  } finally {
    await svc.stop();
  }
});

Deno.test("SocketServer.handle() still upgrades a valid request however its tokens are cased and listed", async () => {
  const svc = await startTestService();
  const port = svc.service.ports.ws;
  try {
    const answer = await upgrade(
      port,
      upgradeRequest(port, (h) => {
        h.connection = "keep-alive, UPGRADE";
        h.upgrade = "WebSocket";
      }),
    );
    assert.equal(answer.status, 101, answer.head);
    assert.match(answer.head, /sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/i);
  } finally {
    await svc.stop();
  }
});

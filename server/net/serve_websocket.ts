/**
 * The engine of the WebSocket port, in place of Deno's per-connection HTTP
 * server (which ends its connection task after an upgrade, so the upgraded
 * socket receives nothing; Deno 2.9.6): it reads one request head from the
 * accepted connection, hands a `Request` to the handler, and either writes
 * its answer and closes, or, when the handler called `upgradeWebSocket`,
 * writes the 101 and serves the WebSocket on the same connection.
 * @module
 */
import { createHash } from "node:crypto";
import { CueportError } from "../core/errors.ts";
import { HeadError, readRequestHead } from "./http_head.ts";
import { errorAnswer } from "./http_error.ts";
import type { ServedConnection, ServeOnConnection } from "./serve_connection.ts";
import { ServerWebSocket, type WebSocketOptions } from "./websocket.ts";

/** The largest request head read; a longer one is answered 431. */
export const MAX_HEAD_BYTES = 16 * 1024;
/** How long an answer that closes the connection lingers for the client to read it. */
const LINGER_MS = 1000;
/** At shutdown, how long a socket's queued frames (its close frame) may take to go out. */
const CLOSE_GRACE_MS = 500;
const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** The reason phrase of each status this port answers with on its own (OSCQuery's too). */
const REASONS: Record<number, string> = {
  101: "Switching Protocols",
  200: "OK",
  204: "No Content",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Content Too Large",
  426: "Upgrade Required",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};
const encoder = new TextEncoder();

/** The request a handler is running, and the socket it asked for. */
interface Pending {
  socket: ServerWebSocket | null;
}
const pending = new WeakMap<Request, Pending>();

/**
 * Answers an upgrade request of the WebSocket port: the socket, and the 101
 * response for the handler to return. Like `Deno.upgradeWebSocket`, which it
 * replaces on that port; the caller checks the request's headers first.
 * @throws {TypeError} when the request did not come through this port, or has no Sec-WebSocket-Key
 */
export function upgradeWebSocket(
  request: Request,
  options: WebSocketOptions = {},
): { socket: ServerWebSocket; response: Response } {
  const slot = pending.get(request);
  if (!slot) throw new TypeError("Not a request of the WebSocket port: it cannot be upgraded");
  const key = request.headers.get("sec-websocket-key");
  if (key === null) throw new TypeError("Sec-WebSocket-Key is missing");
  if (slot.socket) throw new TypeError("The request was already upgraded");
  const accept = createHash("sha1").update(key + GUID).digest("base64");
  slot.socket = new ServerWebSocket(options);
  const response = new Response(null, {
    status: 101,
    headers: { upgrade: "websocket", connection: "Upgrade", "sec-websocket-accept": accept },
  });
  return { socket: slot.socket, response };
}

function head(status: number, headers: Headers, extra: string): Uint8Array {
  let text = `HTTP/1.1 ${status} ${REASONS[status] ?? ""}\r\n`;
  for (const [name, value] of headers) text += `${name}: ${value}\r\n`;
  return encoder.encode(text + extra + "\r\n");
}

/**
 * The request of a connection's head and the bytes read past it; the answer
 * refusing a malformed head; or null when the client left before sending one.
 */
async function requestOf(
  conn: Deno.Conn,
): Promise<{ request: Request; rest: Uint8Array } | { refusal: Response } | null> {
  try {
    const parsed = await readRequestHead(conn, MAX_HEAD_BYTES);
    if (parsed === null) return null;
    const host = parsed.headers.get("host") ?? "localhost";
    let url: URL;
    try {
      url = new URL(parsed.target, `http://${host}`);
    } catch {
      url = new URL(parsed.target, "http://localhost");
    }
    const request = new Request(url, { method: parsed.method, headers: parsed.headers });
    return { request, rest: parsed.rest };
  } catch (error) {
    if (!(error instanceof HeadError) && !(error instanceof TypeError)) throw error;
    const status = error instanceof HeadError ? error.status : 400;
    const code = status === 431 ? "PAYLOAD_TOO_LARGE" : "INVALID_MESSAGE";
    return {
      refusal: errorAnswer(
        new CueportError(code, `Invalid HTTP request: ${error.message}`),
        { status },
      ),
    };
  }
}

/**
 * Serves one connection of the WebSocket port: one request, then either its
 * answer (with `Connection: close`) or the WebSocket it upgraded to.
 */
export function serveWebSocketConnection(): ServeOnConnection {
  return (conn, handler, onError): ServedConnection => {
    let socket: ServerWebSocket | null = null;
    let isClosed = false;
    const close = () => {
      if (socket) return socket.terminate(CLOSE_GRACE_MS);
      isClosed = true;
      try {
        conn.close();
      } catch { /* already closed */ }
    };
    const answer = async (response: Response): Promise<void> => {
      const body = new Uint8Array(await response.arrayBuffer());
      const headers = new Headers(response.headers);
      headers.delete("connection");
      headers.delete("transfer-encoding");
      headers.set("content-length", String(body.length));
      const bytes = head(response.status, headers, "connection: close\r\n");
      await writeAll(conn, join(bytes, body));
      // The client may still be sending (a body nobody reads): closing now could reset the
      // connection before it reads the answer. Stop writing, and close after a moment.
      await conn.closeWrite();
      const timer = setTimeout(close, LINGER_MS);
      const sink = new Uint8Array(4096);
      while (!isClosed && (await conn.read(sink)) !== null) { /* discard */ }
      clearTimeout(timer);
    };
    const run = async (): Promise<void> => {
      const read = await requestOf(conn);
      if (read === null) return;
      if ("refusal" in read) return isClosed ? undefined : await answer(read.refusal);
      const { request, rest } = read;
      const slot: Pending = { socket: null };
      pending.set(request, slot);
      let response: Response;
      try {
        response = await handler(request);
      } catch (error) {
        response = onError(error);
      }
      pending.delete(request);
      if (response.status !== 101 || slot.socket === null) return await answer(response);
      socket = slot.socket;
      try {
        await writeAll(conn, head(101, response.headers, ""));
      } catch {
        // the client is gone: the socket's first read fails, and it ends (and says so)
      }
      await socket.attach(conn, rest);
    };
    const finished = run().catch(() => {}).finally(close);
    return { finished, close };
  };
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (b.length === 0) return a;
  const bytes = new Uint8Array(a.length + b.length);
  bytes.set(a);
  bytes.set(b, a.length);
  return bytes;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

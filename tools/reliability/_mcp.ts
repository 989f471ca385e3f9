/**
 * MCP by hand for the probes: messages POSTed to `/mcp` on fresh
 * connections from any loopback address (127.0.0.1 is this machine, any
 * other 127.x.y.z a remote device), and `GET /mcp` streams on raw sockets
 * that stop reading, as a client that opened its stream and forgot it.
 * @module
 */
import net from "node:net";
import { exchange, requestText } from "./_exchange.ts";

/** Who sends, and where to. */
export interface McpCaller {
  port: number;
  /** 127.0.0.1 is local; any other 127.x.y.z is a remote device. */
  localAddress: string;
  /** A paired device's token (remote callers need one). */
  token?: string;
}

/** What came back. */
export interface McpAnswer {
  /** Null when nothing came back within the bound. */
  status: number | null;
  /** The parsed JSON body, or null. */
  body: unknown;
  /** The `Mcp-Session-Id` header, if any. */
  sessionId: string | null;
  /** Round trip, ms. */
  ms: number;
}

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "reliability", version: "1" },
  },
};

function headers(caller: McpCaller, sessionId?: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
    ...(caller.token ? { authorization: `Bearer ${caller.token}` } : {}),
    ...(sessionId ? { "mcp-session-id": sessionId } : {}),
  };
}

/** Sends one request to `/mcp` (a JSON-RPC message or batch; none for DELETE) on a fresh connection. */
export async function mcpRequest(
  caller: McpCaller,
  message: unknown,
  options: { sessionId?: string; method?: string; withinMs?: number } = {},
): Promise<McpAnswer> {
  const started = performance.now();
  const body = message === undefined ? undefined : JSON.stringify(message);
  const answer = await exchange({
    port: caller.port,
    localAddress: caller.localAddress,
    data: requestText(options.method ?? "POST", "/mcp", {
      host: `127.0.0.1:${caller.port}`,
      headers: headers(caller, options.sessionId),
      ...(body === undefined ? {} : { body }),
    }),
    answerWithinMs: options.withinMs ?? 5000,
  });
  const split = answer.text.indexOf("\r\n\r\n");
  let parsed: unknown = null;
  try {
    parsed = split < 0 ? null : JSON.parse(answer.text.slice(split + 4));
  } catch {
    // not JSON (or cut at 64 KiB)
  }
  const id = /\r\nmcp-session-id:\s*(\S+)/i.exec(answer.text.slice(0, Math.max(0, split)));
  return {
    status: answer.isTimedOut ? null : answer.status,
    body: parsed,
    sessionId: id ? id[1]! : null,
    ms: performance.now() - started,
  };
}

/** Opens a session: its id, or the refusal's answer. */
export async function openSession(caller: McpCaller): Promise<string | McpAnswer> {
  const init = await mcpRequest(caller, INIT);
  if (init.status !== 200 || init.sessionId === null) return init;
  const sessionId = init.sessionId;
  await mcpRequest(caller, { jsonrpc: "2.0", method: "notifications/initialized" }, { sessionId });
  return sessionId;
}

/** A `GET /mcp` stream on its own socket that does not read until `resume`. */
export class PausedStream {
  #socket: net.Socket;
  #tail = "";
  /** Bytes read (only after `resume`). */
  received = 0;
  /** The connection ended, or the body's last chunk arrived. */
  isEnded = false;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on("data", (chunk: Uint8Array) => {
      this.received += chunk.length;
      this.#tail = (this.#tail + new TextDecoder().decode(chunk.subarray(-16))).slice(-16);
      if (this.#tail.endsWith("\r\n0\r\n\r\n")) this.isEnded = true;
    });
    const ended = () => (this.isEnded = true);
    socket.on("end", ended);
    socket.on("close", ended);
    socket.on("error", ended);
  }

  /** Opens the session's stream and stops reading at once. */
  static open(caller: McpCaller, sessionId: string): Promise<PausedStream> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({
        host: "127.0.0.1",
        port: caller.port,
        localAddress: caller.localAddress,
      });
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.removeListener("error", reject);
        socket.pause();
        const lines = Object.entries({ ...headers(caller, sessionId), accept: "text/event-stream" })
          .filter(([name]) => name !== "content-type")
          .map(([name, value]) => `${name}: ${value}\r\n`).join("");
        socket.write(`GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:${caller.port}\r\n${lines}\r\n`);
        resolve(new PausedStream(socket));
      });
    });
  }

  /** Reads from now on (what the sockets held, then the end if the service closed it). */
  resume(): void {
    this.#socket.resume();
  }

  /** Drops the connection. */
  destroy(): void {
    this.#socket.destroy();
  }
}

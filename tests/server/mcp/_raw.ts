/**
 * MCP by hand, for the tests of limits: sessions opened with plain
 * requests (from any loopback address, so 127.0.0.2 is a remote device),
 * and a GET stream on a raw socket that can stop reading.
 */
import net from "node:net";
import { remoteRequest } from "../../../tools/testing/remote.ts";

/** The headers every MCP request carries. */
export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

/** The `initialize` request of a test client. */
export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};

/** Who sends: a token, a source address (default 127.0.0.1, local). */
export interface RawCaller {
  token?: string;
  localAddress?: string;
}

/** An answer with its JSON body. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // deno-lint-ignore no-explicit-any
  body: any;
}

function portOf(base: string): number {
  return Number(new URL(base).port);
}

function headersOf(caller: RawCaller, sessionId?: string): Record<string, string> {
  return {
    ...MCP_HEADERS,
    ...(caller.token ? { authorization: `Bearer ${caller.token}` } : {}),
    ...(sessionId ? { "mcp-session-id": sessionId } : {}),
  };
}

/** Sends `initialize`; the answer, and the session id when it was opened. */
export async function initialize(
  base: string,
  caller: RawCaller = {},
): Promise<RawAnswer & { sessionId: string | null }> {
  const answer = await remoteRequest(portOf(base), "POST", "/mcp", {
    headers: headersOf(caller),
    body: INITIALIZE,
    localAddress: caller.localAddress ?? "127.0.0.1",
  });
  const id = answer.headers["mcp-session-id"];
  return { ...answer, sessionId: typeof id === "string" ? id : null };
}

/** An initialized session. */
export interface RawSession {
  id: string;
  request(body: unknown): Promise<RawAnswer>;
  /** Ends the session (DELETE). */
  close(): Promise<void>;
}

/** Opens a session (initialize, then `notifications/initialized`); throws when refused. */
export async function openRawSession(base: string, caller: RawCaller = {}): Promise<RawSession> {
  const init = await initialize(base, caller);
  if (init.status !== 200 || !init.sessionId) {
    throw new Error(`initialize answered ${init.status}: ${JSON.stringify(init.body)}`);
  }
  const id = init.sessionId;
  const request = (body: unknown, method = "POST") =>
    remoteRequest(portOf(base), method, "/mcp", {
      headers: headersOf(caller, id),
      ...(body === undefined ? {} : { body }),
      localAddress: caller.localAddress ?? "127.0.0.1",
    });
  await request({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    id,
    request: (body) => request(body),
    close: async () => {
      await request(undefined, "DELETE");
    },
  };
}

/** A GET stream on its own socket; it reads only while `resume`d. */
export class RawStream {
  #socket: net.Socket;
  #text = "";
  #tail = "";
  received = 0;
  /** The connection ended (closed or reset by the service, or dropped here). */
  isEnded = false;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on("data", (chunk: Uint8Array) => {
      this.received += chunk.length;
      const text = new TextDecoder().decode(chunk);
      if (this.#text.length < 4096) this.#text += text;
      this.#tail = (this.#tail + text).slice(-16);
    });
    const ended = () => (this.isEnded = true);
    socket.on("end", ended);
    socket.on("close", ended);
    socket.on("error", ended);
  }

  /** Opens `GET /mcp` for the session and stops reading at once. */
  static open(base: string, sessionId: string, caller: RawCaller = {}): Promise<RawStream> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({
        host: "127.0.0.1",
        port: portOf(base),
        localAddress: caller.localAddress ?? "127.0.0.1",
      });
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.removeListener("error", reject);
        socket.pause();
        const auth = caller.token ? `authorization: Bearer ${caller.token}\r\n` : "";
        socket.write(
          `GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:${portOf(base)}\r\n` +
            `accept: text/event-stream\r\nmcp-session-id: ${sessionId}\r\n${auth}\r\n`,
        );
        resolve(new RawStream(socket));
      });
    });
  }

  /** The first bytes received (status line and headers). */
  get head(): string {
    return this.#text;
  }

  /** Whether the response has ended: the last chunk of its chunked body, or the connection. */
  get isAnswered(): boolean {
    return this.isEnded || this.#tail.endsWith("\r\n0\r\n\r\n");
  }

  /** Reads from now on. */
  resume(): void {
    this.#socket.resume();
  }

  /** Drops the connection. */
  destroy(): void {
    this.#socket.destroy();
  }
}

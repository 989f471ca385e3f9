/**
 * One request on one fresh connection: send, then wait for the whole answer
 * or the close, within a bound. A hang is an exchange that times out.
 * @module
 */
import { type Answer, type ConnectOptions, RawConnection } from "./_raw_http.ts";

/** What `exchange` sends and how long it waits. */
export interface ExchangeOptions extends ConnectOptions {
  data: Uint8Array | string;
  /** Half-close after sending, so an incomplete request cannot be waited on forever. */
  isHalfClosed?: boolean;
  /** How long to wait for the answer (or the close) after sending, ms. */
  answerWithinMs: number;
}

/** The outcome of one exchange: the answer, or how it failed. */
export interface Exchange extends Answer {
  /** Neither an answer nor a close within the bound. */
  isTimedOut: boolean;
  /** The connection could not be made. */
  connectError: string | null;
}

/** Connects, sends `data`, and waits for a whole answer or the close. */
export async function exchange(options: ExchangeOptions): Promise<Exchange> {
  let connection: RawConnection;
  try {
    connection = await RawConnection.connect(options);
  } catch (error) {
    return {
      status: null,
      code: null,
      isClosed: true,
      text: "",
      isTimedOut: false,
      connectError: (error as Error).message,
    };
  }
  connection.send(options.data);
  if (options.isHalfClosed) connection.end();
  const isDone = await connection.waitUntil(
    () => connection.isAnswered || connection.isClosed,
    options.answerWithinMs,
  );
  connection.destroy();
  return { ...connection.answer(), isTimedOut: !isDone, connectError: null };
}

/** A well-formed request as text, `Connection: close`, with a Content-Length when it has a body. */
export function requestText(
  method: string,
  path: string,
  options: { host: string; headers?: Record<string, string>; body?: string } = { host: "" },
): string {
  const headers: Record<string, string> = {
    host: options.host,
    connection: "close",
    ...(options.body !== undefined
      ? { "content-length": String(new TextEncoder().encode(options.body).length) }
      : {}),
    ...options.headers,
  };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  return `${method} ${path} HTTP/1.1\r\n${lines}\r\n${options.body ?? ""}`;
}

/**
 * GET `path` on a fresh connection from `localAddress` (default 127.0.0.1),
 * as the watchdog and the local checks ask: never a pooled connection, so an
 * exhausted service cannot answer on one it accepted earlier.
 */
export async function probeGet(
  port: number,
  path: string,
  options: { localAddress?: string; timeoutMs?: number } = {},
): Promise<Exchange> {
  return await exchange({
    port,
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    data: requestText("GET", path, { host: `127.0.0.1:${port}` }),
    answerWithinMs: options.timeoutMs ?? 5000,
    timeoutMs: options.timeoutMs ?? 5000,
  });
}

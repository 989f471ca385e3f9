/**
 * The head of an HTTP/1.1 request, read straight from a connection: all the
 * WebSocket port needs, since an upgrade has no body and every other request
 * there is answered and closed. Bounded: a head over `maxBytes` is refused
 * (431) before more is read; its time is bounded by the accept loop's
 * header deadline (`connections.ts`).
 * @module
 */

/** A parsed request head, and the bytes the client sent after it. */
export interface RequestHead {
  method: string;
  /** The request target as sent (`/v1`, or an absolute URL). */
  target: string;
  headers: Headers;
  /** Bytes after the head (a client may send its first frames at once). */
  rest: Uint8Array;
}

/** A request head that cannot be served: the status to answer, and why. */
export class HeadError extends Error {
  /** 400 or 431. */
  readonly status: number;
  /** Builds the error with the status to answer. */
  constructor(status: number, message: string) {
    super(message);
    this.name = "HeadError";
    this.status = status;
  }
}

const CRLFCRLF = [13, 10, 13, 10];
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const decoder = new TextDecoder("latin1");

function endOfHead(bytes: Uint8Array, from: number, to: number): number {
  outer: for (let i = Math.max(0, from - 3); i + 4 <= to; i++) {
    for (let j = 0; j < 4; j++) if (bytes[i + j] !== CRLFCRLF[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * Reads a request head of at most `maxBytes` from `conn`.
 * @returns the head, or null if the client closed before sending a whole one
 * @throws {HeadError} on a head too long (431) or malformed (400)
 */
export async function readRequestHead(
  conn: Deno.Conn,
  maxBytes: number,
): Promise<RequestHead | null> {
  const buffer = new Uint8Array(maxBytes);
  let filled = 0;
  for (;;) {
    if (filled === maxBytes) {
      throw new HeadError(431, `Request headers too large: over ${maxBytes} bytes`);
    }
    const n = await conn.read(buffer.subarray(filled));
    if (n === null) return null;
    const end = endOfHead(buffer, filled, filled + n);
    filled += n;
    if (end >= 0) {
      return {
        ...parseHead(decoder.decode(buffer.subarray(0, end))),
        rest: buffer.slice(end + 4, filled),
      };
    }
  }
}

/** Parses the request line and header fields (RFC 9112 3 and 5). */
export function parseHead(text: string): Omit<RequestHead, "rest"> {
  const lines = text.split("\r\n");
  const requestLine = /^([^ ]+) ([^ ]+) HTTP\/1\.[01]$/.exec(lines[0] ?? "");
  if (!requestLine || !TOKEN.test(requestLine[1]!)) {
    throw new HeadError(400, `Invalid request line ${JSON.stringify(lines[0]?.slice(0, 40))}`);
  }
  const headers = new Headers();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name)) {
      throw new HeadError(400, `Invalid header line ${JSON.stringify(line.slice(0, 40))}`);
    }
    try {
      headers.append(name, line.slice(colon + 1).trim());
    } catch {
      throw new HeadError(400, `Invalid value of header ${name}`);
    }
  }
  return { method: requestLine[1]!, target: requestLine[2]!, headers };
}

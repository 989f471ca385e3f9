/**
 * A second way to serve an accepted connection, for the WebSocket port:
 * Deno's per-connection HTTP server ends its connection task after an
 * upgrade, and the upgraded socket then receives nothing (Deno 2.9.6). So
 * each admitted connection is relayed, byte for byte, to a `Deno.serve` on a
 * private loopback port, which upgrades it as usual; the relay's own port
 * tells the handler which client it is. The accept loop, budgets and
 * deadlines stay in front (`connections.ts`).
 * @module
 */
import type { ServedConnection, ServeOnConnection } from "./serve_connection.ts";

type Handler = (request: Request) => Response | Promise<Response>;

/** Bytes read at once per direction: small, since a WebSocket message of a show is small. */
const CHUNK = 16 * 1024;

async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(CHUNK);
  try {
    for (;;) {
      const n = await from.read(buffer);
      if (n === null) break;
      let written = 0;
      while (written < n) written += await to.write(buffer.subarray(written, n));
    }
    await to.closeWrite();
  } catch {
    // either side went away; the other is closed by the caller
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

/** The private server and the relay function that feeds it. */
export interface Relay {
  serve: ServeOnConnection;
  /** Stops the private server. */
  close(): Promise<void>;
}

/**
 * Starts the private `Deno.serve` on 127.0.0.1 and returns the relay to it.
 * `Deno.serve` ends on a failed accept (out of descriptors): the private
 * server is then started again on a new port, after `log` says so.
 */
export function startRelay(log: (message: string) => void): Relay {
  const handlers = new Map<number, Handler>();
  const abort = new AbortController();
  const handle = (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => {
    const handler = handlers.get(info.remoteAddr.port);
    if (handler) return handler(request);
    // Someone on this machine found the private port: it serves nobody but the relay.
    return Response.json(
      { error: { code: "NOT_FOUND", message: "Not a Cueport port" } },
      { status: 404 },
    );
  };
  const target = { hostname: "127.0.0.1", port: 0 };
  let finished: Promise<void> = Promise.resolve();
  const listen = (): void => {
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, signal: abort.signal, onListen: () => {} },
      handle,
    );
    target.port = server.addr.port;
    finished = server.finished.catch((error) => {
      if (abort.signal.aborted) return;
      log(`WebSocket relay restarted after: ${(error as Error).message}`);
      setTimeout(listen, 100);
    });
  };
  listen();

  const serve: ServeOnConnection = (conn, handler, _onError): ServedConnection => {
    let upstream: Deno.Conn | null = null;
    let isClosed = false;
    const close = () => {
      isClosed = true;
      closeQuietly(conn);
      if (upstream) closeQuietly(upstream);
    };
    const finished = (async () => {
      let port = 0;
      try {
        upstream = await Deno.connect(target);
        port = (upstream.localAddr as Deno.NetAddr).port;
        handlers.set(port, handler);
        if (isClosed) return;
        await Promise.all([pump(conn, upstream), pump(upstream, conn)]);
      } finally {
        handlers.delete(port);
        close();
      }
    })();
    return { finished, close };
  };

  return {
    serve,
    async close() {
      abort.abort();
      await finished;
    },
  };
}

/**
 * Deno's per-connection HTTP server, wrapped: the engine the accept loop
 * (`connections.ts`) hands each admitted connection to.
 * @module
 */

type DenoServeOnConnection = (
  conn: Deno.Conn,
  signal: Pick<AbortSignal, "addEventListener">,
  handler: (request: Request) => Response | Promise<Response>,
  onError: (error: unknown) => Response,
  onListen: () => void,
) => { finished: Promise<void> };

/** One connection being served: `close` ends it at once (safe to call after it ended). */
export interface ServedConnection {
  finished: Promise<void>;
  close(): void;
}

/** Serves HTTP on one accepted connection. */
export type ServeOnConnection = (
  conn: Deno.Conn,
  handler: (request: Request) => Response | Promise<Response>,
  onError: (error: unknown) => Response,
) => ServedConnection;

/**
 * Deno's per-connection HTTP server, the one `node:http2` and `Deno.serve`
 * are built on. It is internal to Deno: the runtime is pinned (deno.json,
 * the compiled binary embeds it) and a test fails if an upgrade removes it.
 * Deno closes the connection from an abort listener, which throws (and so
 * ends the process as an uncaught error) when the connection has just closed
 * by itself; the listener is kept and called here, where that is caught.
 */
export function serveOnConnection(): ServeOnConnection {
  // deno-lint-ignore no-explicit-any
  const internals = (Deno as any)[(Deno as any).internal];
  const serve = internals?.serveHttpOnConnection as DenoServeOnConnection | undefined;
  if (typeof serve !== "function") {
    throw new Error(
      `This Deno (${Deno.version.deno}) has no per-connection HTTP server: run Cueport with Deno 2.9`,
    );
  }
  return (conn, handler, onError) => {
    let closeListener: (() => void) | null = null;
    const signal = {
      addEventListener(type: string, listener: unknown) {
        if (type === "abort" && typeof listener === "function") {
          closeListener = listener as () => void;
        }
      },
    } as Pick<AbortSignal, "addEventListener">;
    const { finished } = serve(conn, signal, handler, onError, () => {});
    return {
      finished,
      close() {
        const listener = closeListener;
        closeListener = null;
        try {
          listener?.();
        } catch { /* the connection had already closed */ }
      },
    };
  };
}

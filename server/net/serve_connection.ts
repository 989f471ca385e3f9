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
 * The Deno this private call was verified on: its five arguments, that the abort listener closes
 * the connection, that `finished` settles (tests/server/net/). A test fails on any other Deno
 * (`serve_connection_test.ts`, saying what to re-verify); docs/load.md, "No public API keeps the
 * budgets", says why the call is here.
 */
export const VERIFIED_DENO = "2.9.6";

/** Deno's internal per-connection server, or whatever this Deno has in its place. */
function internalServe(): unknown {
  // deno-lint-ignore no-explicit-any
  const internals = (Deno as any)[(Deno as any).internal];
  return internals?.serveHttpOnConnection;
}

/**
 * The start-up self-check: why this Deno cannot serve Cueport's HTTP ports, in one line naming
 * its version, or null when it can (the internal is there, with the five arguments it was
 * verified with).
 */
export function serveOnConnectionProblem(): string | null {
  const serve = internalServe();
  if (typeof serve === "function" && serve.length === 5) return null;
  return `This Deno (${Deno.version.deno}) lacks the per-connection HTTP server Cueport's HTTP ` +
    `ports run on (Deno[Deno.internal].serveHttpOnConnection, verified on Deno ${VERIFIED_DENO}): ` +
    `run Cueport with Deno ${VERIFIED_DENO}, or its compiled binary`;
}

/**
 * Deno's per-connection HTTP server, the one `node:http2` and `Deno.serve`
 * are built on. It is internal to Deno: the runtime is pinned (deno.json,
 * the compiled binary embeds it), the service checks it at start
 * (`serveOnConnectionProblem`) and a test fails on any Deno but `VERIFIED_DENO`.
 * Deno closes the connection from an abort listener, which throws (and so
 * ends the process as an uncaught error) when the connection has just closed
 * by itself; the listener is kept and called here, where that is caught.
 */
export function serveOnConnection(): ServeOnConnection {
  const problem = serveOnConnectionProblem();
  if (problem !== null) throw new Error(problem);
  const serve = internalServe() as DenoServeOnConnection;
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

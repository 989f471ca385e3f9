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
 * the connection, that `finished` settles (tests/server/net/); and `requestHeader`'s read of a
 * served request's inner request. A test fails on any other Deno
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

/** Deno's inner request of a served `Request`, as far as `requestHeader` reads it. */
interface InnerRequest {
  header?: (name: string) => string | null | undefined;
}

/**
 * The key under which Deno keeps a `Request`'s inner request (`Symbol(request)`, a private field
 * of its `Request` class), found once; null when this Deno has none.
 */
let innerKey: symbol | null | undefined;

function innerKeyOf(): symbol | null {
  if (innerKey === undefined) {
    const symbols = Object.getOwnPropertySymbols(new Request("http://localhost/"));
    innerKey = symbols.find((s) => s.description === "request") ?? null;
  }
  return innerKey;
}

/**
 * One header of `request`, as `request.headers.get(name)` gives it: the name in any case, several
 * values joined, null when absent. For a request Deno's HTTP server is serving, read from the
 * engine alone, by the inner request's `header(name)`, the call `Headers.get` of such a request
 * ends in: the first read of `request.headers` fetches every header of the request into a new
 * `Headers`, and once it has, Deno copies them all again when the answer is sent. Reading Host and
 * Origin that way cost 0.9 us a request (7.3 against 6.4 us of CPU, a bare `Deno.serve` under
 * wrk; docs/load.md, Session 19), the largest part of what a read of the app state cost beyond the
 * bare server's. Private to Deno as `serveOnConnection`'s call is, and verified on the same
 * `VERIFIED_DENO`; any other request (a test's), or a Deno whose inner request has no such method,
 * is read by `request.headers.get`: only slower.
 */
export function requestHeader(request: Request, name: string): string | null {
  const key = innerKeyOf();
  const inner = key === null
    ? undefined
    : (request as unknown as Record<symbol, InnerRequest | undefined>)[key];
  if (typeof inner?.header === "function") {
    try {
      return inner.header(name) ?? null;
    } catch {
      // The request closed (its answer sent): Deno kept its headers only if they were read.
    }
  }
  return request.headers.get(name);
}

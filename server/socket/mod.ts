/**
 * The WebSocket transport (`ws://<host>:17734/v1`). The port is bound now so
 * the ready line and the settings are final; the protocol arrives with the
 * WebSocket issue. Until then every request gets a clear error body.
 * @module
 */
import { CueportError } from "../core/mod.ts";

/** Answers every request on the WebSocket port. */
export function handleSocketRequest(_request: Request): Response {
  const error = new CueportError(
    "CONNECTION_FAILED",
    "The WebSocket API is not available in this build yet; use HTTP on the HTTP port",
  );
  return Response.json(error.toJSON(), { status: 501 });
}

/**
 * Which transports carry each operation, and since which interface version:
 * facts of the catalog, read by the transports' tests (every operation must
 * be reachable where it is carried, and refused the same way there) instead
 * of lists kept beside it.
 * @module
 */
import type { AnyOperation, OperationKind, Transport } from "./operation.ts";

/** The 6.0 transports of each kind of operation, unless it names its own (`transports`). */
const BY_KIND: Readonly<Record<OperationKind, readonly Transport[]>> = {
  query: ["http", "websocket", "osc", "mcp"],
  action: ["http", "websocket", "osc", "mcp"],
  edit: ["http", "mcp"],
  security: ["http"],
  service: ["http"],
  media: ["http", "mcp"],
  session: ["websocket"],
};

/** What 5.0.0 carried of each kind: its HTTP routes, and its WebSocket's actions and session. */
const V5_BY_KIND: Readonly<Record<OperationKind, readonly Transport[]>> = {
  query: ["http-5.0.0"],
  action: ["http-5.0.0", "websocket-5.0.0"],
  edit: ["http-5.0.0"],
  security: ["http-5.0.0"],
  service: ["http-5.0.0"],
  media: ["http-5.0.0"],
  session: ["websocket-5.0.0"],
};

/**
 * Every transport that carries `operation`: its own list when it names one,
 * else its kind's, and 5.0.0's unless it is new in 6.0.
 */
export function transportsOf(operation: AnyOperation): readonly Transport[] {
  if (operation.transports) return operation.transports;
  const own = BY_KIND[operation.kind];
  return operation.since === "6.0" ? own : [...own, ...V5_BY_KIND[operation.kind]];
}

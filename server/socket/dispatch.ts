/**
 * What each WebSocket message runs: the operation of the catalog its type
 * names (`query` by its name), with the input built from the message, for
 * the connection's caller (`SocketClient` gives the `Runner`).
 * @module
 */
import {
  type AnyOperation,
  type Core,
  CueportError,
  type InvokeOptions,
  operationNamed,
  operationsOfKind,
} from "../core/mod.ts";
import type { WsDialect } from "../net/dialect.ts";
import type { ClientMessage } from "./messages.ts";

/** The `query` names: the query operations of the core's catalog. */
const QUERIES = operationsOfKind("query");
const QUERY_LIST = [...QUERIES.keys()].join(", ");
/** What each message runs: operations of the catalog, the session's among them. */
const ACTION = operationNamed("action");
/** What `auth` runs. */
export const CONNECT = operationNamed("connect");
const SUBSCRIBE = operationNamed("subscribe");
const FULL = operationNamed("full");
const PING = operationNamed("ping");

/**
 * What each message type runs: an operation of the catalog (`action`, and
 * `query` by its name), the session's (`auth`, `subscribe`, `full`, `ping`).
 */
export function socketOperations(): Record<
  string,
  AnyOperation | ReadonlyMap<string, AnyOperation>
> {
  return {
    auth: CONNECT,
    action: ACTION,
    subscribe: SUBSCRIBE,
    full: FULL,
    query: QUERIES,
    ping: PING,
  };
}

/** How a connection runs what its messages name, through the one policy (`Policy.invoke`). */
export interface Runner {
  /** Runs `connect` for the caller before it authenticated (no grant yet). */
  connect(input: unknown, options: InvokeOptions): unknown;
  /** Runs an operation for the connection's caller. */
  invoke(operation: AnyOperation, input: unknown, options?: InvokeOptions): unknown;
  dialect(): WsDialect;
  core(): Core;
}

/**
 * Runs one checked message and gives its answer's data.
 * @throws {CueportError} the operation's refusals and failures, INVALID_MESSAGE for an unknown query
 */
export async function dispatch(message: ClientMessage, runner: Runner): Promise<unknown> {
  switch (message.type) {
    case "auth":
      // Before authentication the connection holds no grant: the plan is checked, no scope.
      return await runner.connect(message.payload, { prefix: "payload." });
    case "action": {
      const { action, base, velocity, projectID, idempotencyKey } = message;
      const dialect = runner.dialect();
      let request: Record<string, unknown>;
      if (dialect.actionRequest) {
        request = dialect.actionRequest(message, runner.core());
      } else {
        request = { name: action.name, params: action.params };
        if (base !== undefined) request.base = base;
        if (velocity !== undefined) request.velocity = velocity;
        if (projectID !== undefined) request.projectID = projectID;
      }
      const retry = idempotencyKey === undefined
        ? undefined
        : { key: idempotencyKey, field: "idempotencyKey" };
      // The answer of POST /api/v1/action without its `ok`.
      const { ok: _ok, ...answer } = await runner.invoke(ACTION, request, { retry }) as {
        ok: true;
      };
      return answer;
    }
    case "subscribe":
      return runner.invoke(SUBSCRIBE, message.payload, { prefix: "payload." });
    case "full":
      return runner.invoke(FULL, {});
    case "query": {
      const operation = QUERIES.get(message.query);
      if (!operation) {
        throw new CueportError(
          "INVALID_MESSAGE",
          `Invalid query: no query named ${JSON.stringify(message.query)}: use ${QUERY_LIST}`,
          { field: "query" },
        );
      }
      return runner.invoke(operation, message.params ?? {}, { prefix: "params." });
    }
    case "ping":
      return runner.invoke(PING, {});
  }
}

/**
 * The one place where an error becomes an MCP answer, in the three forms the
 * protocol has: a tool result with `isError` (a tool that failed: the model
 * reads it and corrects itself), a JSON-RPC error inside a session (a
 * resource that failed), and a JSON-RPC error as the answer to an HTTP
 * request of `/mcp` (refused before any session: the body, the token, the
 * plan). Each carries the core's `errorBody` (the one serialization
 * fallback) as its data.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import { type JSONRPCMessage, McpError } from "@modelcontextprotocol/sdk/types.js";
import { asCueportError, type CueportError, errorBody } from "../core/mod.ts";
import { httpError } from "../net/mod.ts";
import { hintOf } from "./answers.ts";
import type { CallResult } from "./tool.ts";

/** The JSON-RPC code of an error inside a session (resources: not-found is -32002 by the MCP spec). */
function rpcCodeOf(e: CueportError): number {
  switch (e.code) {
    case "NOT_FOUND":
      return -32002;
    case "INVALID_MESSAGE":
      return -32602;
    case "SERVER_ERROR":
      return -32603;
    default:
      return -32600;
  }
}

/** A failed call as a tool result, with a hint of what to call next; never leaks a stack. */
export function errorResultOf(error: unknown, tool: string): CallResult {
  const e = asCueportError(error);
  const text = JSON.stringify({ error: { ...errorBody(e), hint: hintOf(e, tool) } });
  return { content: [{ type: "text", text }], isError: true };
}

/** Any thrown value as a JSON-RPC error of a session (the SDK sends it). */
export function mcpError(error: unknown): McpError {
  const e = asCueportError(error);
  return sessionError(rpcCodeOf(e), e.message, errorBody(e));
}

/**
 * A JSON-RPC error of a session with `message` as its words on the wire: the SDK's `McpError`
 * puts "MCP error <code>:" before them, which repeats the error's `code` beside it.
 */
export function sessionError(code: number, message: string, data?: unknown): McpError {
  const error = new McpError(code, message, data);
  error.message = message;
  return error;
}

/** A JSON-RPC error with an HTTP status, as the SDK's transport answers one. */
export function rpcErrorResponse(
  status: number,
  code: number,
  message: string,
  options: { data?: unknown; headers?: Record<string, string> } = {},
): Response {
  const error = options.data === undefined
    ? { code, message }
    : { code, message, data: options.data };
  return Response.json({ jsonrpc: "2.0", error, id: null }, {
    status,
    headers: options.headers ?? {},
  });
}

/**
 * A refusal of the service before any session (401, 403, 413, 429...) in
 * JSON-RPC form, at its HTTP status; 401 says how to authenticate.
 */
export function refusal(error: unknown): Response {
  const e = asCueportError(error);
  // The status and headers (`Retry-After`) of the one HTTP mapping; the body is JSON-RPC's.
  const { status, headers } = httpError(e);
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="app"';
  return rpcErrorResponse(status, -32001, e.message, { data: errorBody(e), headers });
}

/** The `-32602` answer to request `id` whose params do not fit its method (`request_check.ts`). */
export function invalidParams(id: string | number, error: CueportError): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    id,
    error: { code: -32602, message: error.message, data: errorBody(error) },
  };
}

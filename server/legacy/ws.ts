/**
 * The 5.0.0 WebSocket dialect (spec section 9), served by the WebSocket
 * engine (`server/socket`) on the 5.0.0 port at `/`:
 *
 * - auth as in 6.0 (`{type: "auth", payload: {token} | {otp, deviceName} | {}}`),
 *   answered by the `connected` event with the client ID (nothing is sent on open);
 * - `{type: "action", payload: {action: {name, params}}, correlationId}`, answered by
 *   `{type: "action-response", correlationId, payload: {success, ...}}`;
 * - state updates as `{type: "event", payload: {event: "state-update", updates: [...]}}`,
 *   of the six 5.0.0 types only, with 5.0.0 directions;
 * - errors `{type: "error", correlationId, payload: {type, message}}` of the five
 *   5.0.0 types.
 * @module
 */
import { type ActionResult, CueportError } from "../core/mod.ts";
import { checkV5Envelope, toV6Action, v5NameOf } from "./v5_actions.ts";
import type { DecodedMessage, DialectMessageId, WsDialect } from "../net/dialect.ts";
import {
  deprecationNotice,
  type SuccessorPorts,
  type UsageLog,
  V5_TOKEN_LIFETIME_SECONDS,
} from "./deprecation.ts";
import { v5ErrorBody } from "./errors.ts";
import { V5_API_VERSION } from "./routes.ts";
import { v5Json, v5UpdatesJson } from "./shapes.ts";

/** What the 5.0.0 WebSocket dialect needs. */
export interface V5WsOptions {
  version: string;
  /** The 6.0 ports, once bound. */
  successor: SuccessorPorts;
  usage?: UsageLog;
}

/** The message types of 5.0.0 (and a ping, as every client library sends one). */
const TYPES = ["auth", "action", "ping"];

function idOf(raw: Record<string, unknown>): DialectMessageId {
  const id = raw.correlationId ?? raw.id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

function invalid(message: string, field: string): CueportError {
  return new CueportError("INVALID_MESSAGE", message, { field });
}

/** A 5.0.0 message as the engine's (6.0) message, or the refusal. */
function decode(raw: Record<string, unknown>, wsPort: number): DecodedMessage {
  const id = idOf(raw);
  const { type, payload, correlationId: _c, id: _i, ...rest } = raw;
  const extra = Object.keys(rest)[0];
  try {
    if (typeof type !== "string" || !TYPES.includes(type)) {
      const what = type === undefined ? "Missing type" : `Unknown type ${JSON.stringify(type)}`;
      throw invalid(
        `${what}: the 5.0.0 interface takes auth, action and ping (queries, filters and the ` +
          `rest are 6.0: ws://<host>:${wsPort}/v1)`,
        "type",
      );
    }
    if (extra !== undefined) {
      throw invalid(
        `Invalid ${extra}: not a field of a 5.0.0 message (type, payload, correlationId)`,
        extra,
      );
    }
    if (type === "ping") return { id, message: { type } };
    if (type === "auth") {
      return { id, message: payload === undefined ? { type } : { type, payload } };
    }
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
      throw invalid(
        'Invalid payload: must be {"action": {"name": "PlayAction", "params": []}}',
        "payload",
      );
    }
    const body = payload as Record<string, unknown>;
    checkV5Envelope(body); // velocity and base are refused here, naming the 6.0 way
    const message: Record<string, unknown> = { type, action: body.action };
    if (body.projectID !== undefined) message.projectID = body.projectID;
    return { id, message };
  } catch (error) {
    return { id, error: error as CueportError };
  }
}

/** The 5.0.0 WebSocket dialect. */
export function v5WsDialect(options: V5WsOptions): WsDialect {
  const answer = (id: DialectMessageId, type: string, data: unknown, clientId: string): string => {
    const correlationId = id ?? null;
    switch (type) {
      case "auth": {
        const token = (data as { token?: string }).token;
        return JSON.stringify({
          type: "event",
          event: "connected",
          clientId,
          correlationId,
          payload: {
            event: "connected",
            clientId,
            apiVersion: V5_API_VERSION,
            appVersion: options.version,
            authenticated: true,
            ...(token ? { token } : {}),
            deprecation: deprecationNotice(options.successor),
          },
        });
      }
      case "action": {
        const { action, ...result } = data as ActionResult;
        return `{"type":"action-response","correlationId":${JSON.stringify(correlationId)},` +
          `"payload":${v5Json({ success: true, action: v5NameOf(action), ...result })}}`;
      }
      default:
        return JSON.stringify({ type: "pong", correlationId, payload: data });
    }
  };
  return {
    name: "5.0.0",
    paths: ["/", ""],
    pathHint: "the 5.0.0 interface is at / (6.0: /v1 on its own port)",
    greeting: () => null,
    decode: (raw) => decode(raw, options.successor().ws),
    answer,
    error(id, error, type) {
      const correlationId = id ?? null;
      if (type === "action") {
        return JSON.stringify({
          type: "action-response",
          correlationId,
          payload: { success: false, error: v5ErrorBody(error) },
        });
      }
      return JSON.stringify({ type: "error", correlationId, payload: v5ErrorBody(error) });
    },
    updatesJson: v5UpdatesJson,
    eventPrefix: () => '{"type":"event","payload":{"event":"state-update","updates":',
    eventSuffix: "}}",
    actionRequest(message, core) {
      const request: Record<string, unknown> = { action: message.action };
      if (message.projectID !== undefined) request.projectID = message.projectID;
      return toV6Action(request, core);
    },
    tokenLifetimeSeconds: V5_TOKEN_LIFETIME_SECONDS,
    seen: (address) => options.usage?.seen(address, "WebSocket"),
  };
}

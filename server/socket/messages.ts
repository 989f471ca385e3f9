/**
 * The WebSocket message shapes (docs/websocket.md), declared once: inbound
 * messages are validated with these schemas, outbound ones built here.
 * @module
 */
import { z } from "zod";
import { ConnectInput, errorBody, SubscribeInput } from "../core/mod.ts";

/** A message's `id`, echoed in its answer. */
const Id = z.union([z.string(), z.number()], { error: "a string or a number, or none" }).optional();

/** `{type: "auth", id?, payload: {token} | {otp, deviceName} | {}}` */
export const AuthMessage = z.strictObject({
  type: z.literal("auth"),
  id: Id,
  payload: ConnectInput.default({}),
});

/**
 * `{id, type: "action", action: {name, params}, base?, velocity?, projectID?, idempotencyKey?}`:
 * the fields of `POST /api/v1/action`, with the same spelling (`projectID`).
 */
export const ActionMessage = z.strictObject({
  type: z.literal("action"),
  id: Id,
  action: z.strictObject({ name: z.unknown(), params: z.unknown().optional() }, {
    error: (issue) =>
      issue.code === "invalid_type" ? "action must be an object {name, params}" : undefined,
  }),
  base: z.unknown().optional(),
  velocity: z.unknown().optional(),
  projectID: z.unknown().optional(),
  /** A retry key, as the HTTP `Idempotency-Key` header (docs/api.md, "Safe retries"). */
  idempotencyKey: z.unknown().optional(),
});

/** Narrows the state updates this client receives; omitted fields mean all. */
export const SubscribeMessage = z.strictObject({
  type: z.literal("subscribe"),
  id: Id,
  payload: SubscribeInput.default({}),
});

/** Asks for a `full` state update now. */
export const FullMessage = z.strictObject({ type: z.literal("full"), id: Id });

/**
 * A query: `query` names a query operation of the core's catalog, `params`
 * is its input, checked by the operation's own schema (as HTTP checks it).
 */
export const QueryMessage = z.strictObject({
  type: z.literal("query"),
  id: Id,
  query: z.string(),
  params: z.unknown().optional(),
});

/** Application-level ping. */
export const PingMessage = z.strictObject({ type: z.literal("ping"), id: Id });

/** Every inbound message. */
export const ClientMessage = z.discriminatedUnion("type", [
  AuthMessage,
  ActionMessage,
  SubscribeMessage,
  FullMessage,
  QueryMessage,
  PingMessage,
]);
/** The schema of each inbound message, by its `type`. */
export const MESSAGE_SCHEMAS: Readonly<Record<ClientMessage["type"], z.ZodType<ClientMessage>>> = {
  auth: AuthMessage,
  action: ActionMessage,
  subscribe: SubscribeMessage,
  full: FullMessage,
  query: QueryMessage,
  ping: PingMessage,
};

/** Every inbound message. */
export type ClientMessage = z.infer<typeof ClientMessage>;

/** A message id as received. */
export type MessageId = string | number | undefined;

/** `{type: "response", id, data}` */
export function response(id: MessageId, data: unknown): string {
  return JSON.stringify({ type: "response", id: id ?? null, data });
}

/**
 * `{type: "error", id, error: {code, message, details?}}`: any thrown value,
 * its body from the core's `errorBody` (as every wire's). The one place where
 * an error becomes a WebSocket answer of 6.0.
 */
export function errorOf(id: MessageId, error: unknown): string {
  return JSON.stringify({ type: "error", id: id ?? null, error: errorBody(error) });
}

/** A state-update event around a payload already serialized once for every client. */
export function stateUpdate(seq: number, payloadJson: string): string {
  return `${stateUpdatePrefix(seq)}${payloadJson}}`;
}

/**
 * The part of a state-update event before its payload: all that differs
 * between clients (their `seq`). The payload and the closing brace follow.
 */
export function stateUpdatePrefix(seq: number): string {
  return `{"type":"event","event":"state-update","seq":${seq},"payload":`;
}

/**
 * Why the server closes a connection: the code and reason a client sees
 * (docs/websocket.md lists them).
 */
export const CloseReasons = {
  /** Over its budget of unsent bytes and still sending (or stuck there for `lagCloseMs`). */
  notReading: { code: 1008, reason: "Too slow: not reading its messages" },
  /** Not authenticated within `authTimeoutMs`. */
  authTimeout: { code: 1008, reason: "Authentication timeout" },
  /** The operator denied the connection (`cueport deny`). */
  notApproved: { code: 1008, reason: "Not approved on the show machine" },
  /** The paired device was revoked. */
  revoked: { code: 1008, reason: "Device revoked" },
  /** A message over `maxMessageBytes` before authentication. */
  tooBig: { code: 1009, reason: "Message too big: authenticate first" },
  /** Lagging behind the state updates for `lagCloseMs`. */
  lagging: { code: 1013, reason: "Too slow: fell behind the state updates" },
  /** The service stops. */
  shutdown: { code: 1001, reason: "Service shutting down" },
} as const;

/** One of `CloseReasons`. */
export type CloseReason = (typeof CloseReasons)[keyof typeof CloseReasons];

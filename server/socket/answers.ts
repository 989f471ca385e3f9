/**
 * The shapes of what the server sends on the WebSocket (docs/websocket.md),
 * exactly: the `connected` event, responses, errors and state-update events.
 * `messages.ts` builds them on the hot path without checking; tests check
 * live messages against these. A query answers the shape of its HTTP route.
 * @module
 */
import { z } from "zod";
import { UpdateType } from "../../protocol/state.ts";
import { StateUpdateDetail } from "../../protocol/state_updates.ts";
import { ActionResultView, ErrorBody } from "../core/mod.ts";

/** The id of the message answered, or null when it had none. */
const AnswerId = z.union([z.string(), z.number()]).nullable();

/** `{type: "response", id, data}`, with `data` of the given shape. */
export function responseOf<T extends z.ZodType>(
  data: T,
): z.ZodType {
  return z.strictObject({ type: z.literal("response"), id: AnswerId, data });
}

/** `{type: "error", id, error: {code, message, details?}}` */
export const ErrorAnswer = z.strictObject({
  type: z.literal("error"),
  id: AnswerId,
  error: ErrorBody.shape.error,
});

/** `data` of the answer to `auth`: the token only for a newly paired device. */
export const AuthAnswer = z.strictObject({
  authenticated: z.literal(true),
  token: z.string().optional(),
});

/** `data` of the answer to `action`: that of `POST /api/v1/action` without `ok`. */
export const ActionAnswer = ActionResultView.omit({ ok: true });

/** `data` of the answer to `subscribe`: the filter now in force. */
export const SubscribeAnswer = z.strictObject({
  subscribed: z.strictObject({
    updateTypes: z.union([z.array(UpdateType), z.literal("all")]),
    projectIds: z.union([z.array(z.string()), z.literal("all")]),
    positions: z.boolean(),
  }),
});

/** `data` of the answer to `full`: the seq of the state-update message it sent. */
export const FullAnswer = z.strictObject({ seq: z.number().int() });

/** `data` of the answer to `ping`. */
export const PingAnswer = z.strictObject({ pong: z.literal(true), time: z.number() });

/** The first message of every connection. */
export const ConnectedEvent = z.strictObject({
  type: z.literal("event"),
  event: z.literal("connected"),
  clientId: z.string(),
  payload: z.strictObject({
    clientId: z.string(),
    apiVersion: z.string(),
    appVersion: z.string(),
    authRequired: z.boolean(),
  }),
});

/** A state-update event: this connection's `seq` and a batch of updates. */
export const StateUpdateEvent = z.strictObject({
  type: z.literal("event"),
  event: z.literal("state-update"),
  seq: z.number().int(),
  payload: z.array(StateUpdateDetail),
});

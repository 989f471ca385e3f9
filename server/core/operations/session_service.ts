/**
 * What the session operations (`session.ts`) take and answer, and
 * `SessionService`: what the connection they run on does for them. Apart
 * from the operations, so that `operation.ts` can name it without a circle.
 * @module
 */
import { z } from "zod";
import { UpdateType } from "../../../protocol/state.ts";

/** A session's filter of its state updates; omitted fields mean all. */
export const SubscribeInput = z.strictObject({
  updateTypes: z.array(UpdateType).optional(),
  projectIds: z.array(z.string()).optional(),
  /** Drop `positions` reports (they come every 250 ms while playing). */
  positions: z.boolean().optional(),
});
export type SubscribeInput = z.infer<typeof SubscribeInput>;

/** The filter in force after a `subscribe`. */
export const SubscribedView = z.strictObject({
  subscribed: z.strictObject({
    updateTypes: z.union([z.array(UpdateType), z.literal("all")]),
    projectIds: z.union([z.array(z.string()), z.literal("all")]),
    positions: z.boolean(),
  }),
});

/** The credentials a session connects with (a WebSocket `auth` payload). */
export const ConnectInput = z.strictObject({
  token: z.string().optional(),
  otp: z.string().optional(),
  deviceName: z.string().optional(),
});
export type ConnectInput = z.infer<typeof ConnectInput>;

/** What a session's connection does for its operations. */
export interface SessionService {
  /** Authenticates the connection; the answer the client gets. */
  connect(credentials: ConnectInput): Promise<{ authenticated: true; token?: string }>;
  /** Sets the filter of its state updates; the filter in force. */
  subscribe(filter: SubscribeInput): z.infer<typeof SubscribedView>;
  /** Sends it a `full` state update now; the seq of that message. */
  sendFull(): { seq: number };
}

/**
 * The 6.0 WebSocket dialect (docs/websocket.md): the greeting on open, `id`
 * echoed in `response` and `error` messages, state updates as
 * `{type: "event", event: "state-update", seq, payload: [...]}`. The engine's
 * default; the 5.0.0 one is in `server/legacy`.
 * @module
 */
import type { StateUpdate } from "../../protocol/state.ts";
import type { WsDialect } from "../net/dialect.ts";
import { errorOf, type MessageId, response, stateUpdatePrefix } from "./messages.ts";

/** The 6.0 dialect; `version` is the app version the greeting reports. */
export function v6Dialect(version: string): WsDialect {
  return {
    name: "6.0",
    paths: ["/v1", "/v1/"],
    pathHint: "connect to /v1",
    greeting: (clientId) =>
      JSON.stringify({
        type: "event",
        event: "connected",
        clientId,
        payload: { clientId, apiVersion: "6.0", appVersion: version, authRequired: true },
      }),
    decode(raw) {
      // Only an id of the documented kinds is echoed: echoing any value (a 10,000-deep array)
      // would make the answer itself the attack.
      const id = raw.id;
      return {
        id: typeof id === "string" || typeof id === "number" ? id : undefined,
        message: raw,
      };
    },
    answer: (id, _type, data) => response(id as MessageId, data),
    error: (id, error) => errorOf(id as MessageId, error),
    updatesJson: (updates: readonly StateUpdate[]) => JSON.stringify(updates),
    eventPrefix: stateUpdatePrefix,
    eventSuffix: "}",
  };
}

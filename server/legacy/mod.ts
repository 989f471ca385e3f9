/**
 * The 5.0.0 interface (spec section 9; docs/compat.md): its HTTP routes and
 * WebSocket dialect, served by the HTTP and WebSocket engines on the 5.0.0
 * ports, over the same core, read model and event bus as 6.0.
 * @module
 */
export { v5HttpDialect, type V5HttpOptions } from "./http.ts";
export { v5WsDialect, type V5WsOptions } from "./ws.ts";
export { DEPRECATED_SINCE, SUNSET, UsageLog, V5_TOKEN_LIFETIME_SECONDS } from "./deprecation.ts";
export { V5_ERROR_TYPES, V5_STATUSES, v5ErrorBody, v5Status } from "./errors.ts";
export {
  V5_API_VERSION,
  V5_CARRIED_AS,
  V5_OWN_OPERATIONS,
  V5InfoView,
  v5Routes,
} from "./routes.ts";
export { V5_UPDATE_TYPES } from "./shapes.ts";
export * from "./v5_actions.ts";
export {
  bindV5Listeners,
  type V5Engines,
  type V5ListenerOptions,
  type V5Listeners,
  type V5SocketServer,
} from "./listeners.ts";

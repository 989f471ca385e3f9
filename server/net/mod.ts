/**
 * The network edge shared by the HTTP and WebSocket ports: binding every
 * host, the accept loop with connection budgets and deadlines, and peer
 * addresses in plain form.
 * @module
 */
export { normalizeAddress } from "./address.ts";
export { addressProblem } from "./bind_each.ts";
export {
  type ConnectionLimits,
  ConnectionServer,
  type ConnectionServerOptions,
  LINGER_MS,
  type Peer,
  type PeerHandler,
  plainAnswer,
} from "./connections.ts";
export { serveOnConnectionProblem } from "./serve_connection.ts";
export { type DatagramSocket, UdpPort } from "./udp_port.ts";
export { readBoundedText } from "./bounded_body.ts";
export { errorAnswer, httpError, type HttpErrorOptions } from "./http_error.ts";
export { MAX_HEAD_BYTES, upgradeWebSocket } from "./serve_websocket.ts";
export { ServerWebSocket, type WebSocketCloseEvent, type WebSocketOptions } from "./websocket.ts";
export { binaryFrame } from "./ws_frames.ts";

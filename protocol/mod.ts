/**
 * What the player and the server share: JSON-RPC messages, the transport,
 * the project model, runtime state, the action catalog and protocol methods.
 * @module
 */
export * from "./jsonrpc.ts";
export * from "./transport.ts";
export * from "./model.ts";
export * from "./state.ts";
export * from "./state_updates.ts";
export * from "./exact.ts";
export * from "./actions.ts";
export * from "./positions.ts";
export * from "./methods.ts";

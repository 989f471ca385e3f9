/**
 * The server side of the bridge: spawn, supervise and talk to the player.
 * @module
 */
export * from "./rpc_client.ts";
export * from "./spawn.ts";
export * from "./supervisor.ts";
export * from "./watch_clock.ts";

/**
 * The HTTP route (`server/net/route.ts`, shared with the 5.0.0 interface).
 * @module
 */
export * from "../net/route.ts";

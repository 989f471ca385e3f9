/**
 * The shared core: one catalog of actions and their rules, the read model,
 * the event bus and the errors every transport maps to its wire.
 * @module
 */
export * from "./errors.ts";
export * from "./caller.ts";
export * from "./policy.ts";
export { fieldPath, inputError } from "./input_errors.ts";
export * from "./action_rules.ts";
export * from "./read_model.ts";
export * from "./event_bus.ts";
export * from "./core.ts";
export * from "./queries.ts";
export { snapshotView } from "./client_updates.ts";
export * from "./views.ts";
export * from "./results.ts";
export type { PlayerConnection } from "./player_connection.ts";
export * from "./edits.ts";
export * from "./imports.ts";
export * from "./idempotency.ts";
export * from "./operations/mod.ts";

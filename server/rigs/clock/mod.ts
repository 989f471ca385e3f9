/**
 * One show clock across rigs (issue 46): the clock exchange between rigs over UDP, the filter of
 * its samples, the show clock that follows the leader's and schedules actions at a show time,
 * and chrony's tracking where the operator runs it. docs/rigs_clock.md says how to use it.
 * @module
 */
export * from "./chrony.ts";
export * from "./exchange.ts";
export * from "./filter.ts";
export * from "./follower.ts";
export * from "./local_clock.ts";
export * from "./packet.ts";
export * from "./sample.ts";
export * from "./show_clock.ts";

/**
 * The player's output (`docs/output.md`): the show drawn and played by a page
 * in a Chromium-family browser the player supervises.
 * @module
 */
export { type Output, type OutputLog, type OutputOptions, startOutput } from "./output.ts";
export type { RenderSource } from "./render_state.ts";

/**
 * `OUTPUT_REGION`: the region of the canvas this machine's output shows, with its blend edges
 * (`appState.outputRegion`, saved with the settings; the page draws it, `page/region.js`).
 * @module
 */
import { isFullRegion, parseRegion, regionText } from "../../protocol/region.ts";
import { type ActionHandler, done, str, unchanged } from "./context.ts";

/** The region handler by action name. */
export const regionActions: Record<string, ActionHandler> = {
  OUTPUT_REGION: (ctx) => {
    // The params are checked at the door (`params_check.ts`): a region's text that parses.
    const region = parseRegion(str(ctx, "region"));
    const text = regionText(region);
    const said = isFullRegion(region) ? "the whole canvas" : `region ${text}`;
    const now = ctx.app.appState.outputRegion;
    if (now && regionText(now) === text) return unchanged(`The output already shows ${said}`);
    ctx.app.changeAppState("output-region-changed", { outputRegion: region });
    return done(`Output shows ${said}`);
  },
};

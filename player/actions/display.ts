/**
 * `OUTPUT_DISPLAY`: the display the output is on (`appState.outputDisplay`, saved with the
 * settings; the output's window follows it, `player/output/window_state.ts`).
 * @module
 */
import { PRIMARY_DISPLAY } from "../../protocol/action_rules.ts";
import { type ActionHandler, done, str, unchanged } from "./context.ts";

/** The display handler by action name. */
export const displayActions: Record<string, ActionHandler> = {
  OUTPUT_DISPLAY: (ctx) => {
    const asked = str(ctx, "display").trim();
    const outputDisplay = asked === PRIMARY_DISPLAY || asked === "" ? null : asked;
    const said = outputDisplay ?? "the primary display";
    if (ctx.app.appState.outputDisplay === outputDisplay) {
      return unchanged(`The output is already on ${said}`);
    }
    ctx.app.changeAppState("output-display-changed", { outputDisplay });
    return done(`Output on ${said}`);
  },
};

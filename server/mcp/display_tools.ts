/**
 * The displays tool: the machine's displays and the output's, the `displays` operation as it
 * is (the action `OUTPUT_DISPLAY`, through `app_run_action`, moves the output).
 * @module
 */
import { operationNamed } from "../core/mod.ts";
import { type AnyTool, operationTool, readAnnotations } from "./tool.ts";

/** `app_get_displays`. */
export function displayTools(): AnyTool[] {
  return [
    operationTool(
      {
        name: "app_get_displays",
        description:
          'List the show machine\'s displays (name, index, rectangle, primary), the display the output is to be on (`choice`: a name or index; null the primary) and the index of the one its window is on (`current`). Put the output on another with the action OUTPUT_DISPLAY, e.g. {"display": "HDMI-1"} or {"display": "1"}. Example: {}',
        annotations: readAnnotations("List Displays"),
      },
      operationNamed("displays"),
    ),
  ];
}

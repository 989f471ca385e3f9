/**
 * The displays operation: the machine's displays and the output's, asked of the player
 * (`output.displays`; `protocol/displays.ts`). A read for `view`, as the other reads.
 * @module
 */
import { z } from "zod";
import { OutputDisplays } from "../../../protocol/displays.ts";
import { type AnyOperation, defineOperation } from "./operation.ts";

/** `displays`: `GET /api/v1/output/displays`, the MCP tool `app_get_displays`, `cueport displays`. */
export const displaysOperation: AnyOperation = defineOperation({
  name: "displays",
  since: "6.0",
  summary:
    "The machine's displays (name, rectangle, primary), the one the output is to be on (OUTPUT_DISPLAY, the outputDisplay setting) and the one its window is on",
  tag: "output",
  kind: "query",
  input: z.strictObject({}),
  output: OutputDisplays,
  run: ({ core }) => core.displays(),
});

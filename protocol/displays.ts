/**
 * The machine's displays, as the output sees them (`output.displays`, since player protocol 1.7;
 * `GET /api/v1/output/displays`, the MCP tool `app_get_displays`, `cueport displays`), and the
 * display the output is on. Declared once: the player answers it, the service checks it.
 * @module
 */
import { z } from "zod";

/** One display: a rectangle of the desktop, in the browser's window coordinates. */
export const Display = z.strictObject({
  index: z.number().int().min(0).describe(
    "Its place in the list, from 0: what `outputDisplay` and `OUTPUT_DISPLAY` accept besides its name",
  ),
  name: z.string().describe("Its name (X11: the RandR monitor's, such as `HDMI-1`)"),
  left: z.number().int().describe("Left edge on the desktop, pixels"),
  top: z.number().int().describe("Top edge on the desktop, pixels"),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  isPrimary: z.boolean().describe(
    "The primary display (the one marked primary, else the one at the desktop's corner)",
  ),
  scaleFactor: z.number().positive().nullable().describe(
    "Device pixels per CSS pixel, where known; null where the source does not say",
  ),
});
/** One display. */
export type Display = z.infer<typeof Display>;

/** Where the list comes from: X11's RandR monitors (`xrandr --listmonitors`), or nowhere. */
export const DISPLAY_SOURCES = ["xrandr", "none"] as const;

/** `output.displays`: the displays, which one the output wants and which one it is on. */
export const OutputDisplays = z.strictObject({
  displays: z.array(Display),
  source: z.enum(DISPLAY_SOURCES).describe(
    "`xrandr`: X11's monitors; `none`: no list here (no X11 display, or no output window)",
  ),
  reason: z.string().nullable().describe("Why the list is empty (`source` none); null otherwise"),
  choice: z.string().nullable().describe(
    "The display the output is to be on: a name or an index as `outputDisplay` says (the setting, or the last `OUTPUT_DISPLAY`); null: the primary",
  ),
  current: z.number().int().min(0).nullable().describe(
    "The index of the display the output's window was put on (the primary while the chosen one is not connected); null: none yet (no output window)",
  ),
});
/** `output.displays` result. */
export type OutputDisplays = z.infer<typeof OutputDisplays>;

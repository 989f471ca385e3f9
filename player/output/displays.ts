/**
 * The machine's displays, from X11's RandR monitors (`xrandr --listmonitors`): the list a
 * desktop's window manager places full-screen windows by, and the one a monitor split with
 * `xrandr --setmonitor` shows in. The supervised browser's own list (the Window Management
 * API, `getScreenDetails()`) was tried first and not kept: Chromium builds it from RandR
 * outputs alone, so under Xvfb (one output) it saw one 2560x720 screen where RandR had two
 * monitors (measured, Chromium 156; `docs/output.md`, "Displays"). Both give the desktop's
 * pixels, the coordinates DevTools' `Browser.setWindowBounds` takes at scale 1.
 * @module
 */
import type { Display, OutputDisplays } from "../../protocol/displays.ts";
import { PRIMARY_DISPLAY } from "../../protocol/action_rules.ts";
import { env } from "./browser_process.ts";

/** The displays found, where from, and why none when none. */
export type DisplayList = Pick<OutputDisplays, "displays" | "source" | "reason">;

/** ` 1: +*HDMI-1 1920/527x1080/296+1920+0  HDMI-1` (a negative place prints as `+-40`). */
const MONITOR = /^\s*(\d+):\s+\+?(\*?)(\S+)\s+(\d+)\/\d+x(\d+)\/\d+\+(-?\d+)\+(-?\d+)/;

/**
 * The monitors of `xrandr --listmonitors` output; the primary is the one marked `*`, else the
 * one at the desktop's corner (0,0), else the first.
 */
export function parseMonitors(text: string): Display[] {
  const found = text.split("\n").flatMap((line) => {
    const m = MONITOR.exec(line);
    if (!m) return [];
    return [{
      name: m[3]!,
      width: Number(m[4]),
      height: Number(m[5]),
      left: Number(m[6]),
      top: Number(m[7]),
      isMarked: m[2] === "*",
    }];
  });
  const marked = found.findIndex((d) => d.isMarked);
  const corner = found.findIndex((d) => d.left === 0 && d.top === 0);
  const primary = marked >= 0 ? marked : Math.max(0, corner);
  return found.map(({ isMarked: _, ...d }, index) => ({
    index,
    ...d,
    isPrimary: index === primary,
    scaleFactor: null,
  }));
}

/** The display `choice` names (a name, an index, `primary` or null), or null when none is. */
export function chooseDisplay(
  displays: readonly Display[],
  choice: string | null,
): Display | null {
  if (choice === null || choice === "" || choice === PRIMARY_DISPLAY) {
    return displays.find((d) => d.isPrimary) ?? displays[0] ?? null;
  }
  const byName = displays.find((d) => d.name === choice);
  if (byName) return byName;
  return /^\d+$/.test(choice) ? displays[Number(choice)] ?? null : null;
}

/**
 * Whether a window at `bounds` fills `display`: its corner there, its size the display's or a
 * pixel short. Chromium on X11 keeps a window a pixel short of its screen's width and height
 * (asked for 1280x720 on a 1280x720 screen it is 1279x719: measured under Xvfb, Chromium
 * 156); taken for another rectangle, the window was moved again at each check, out of full
 * screen and back, a light frame each time (`window_state.ts`).
 */
export function fillsDisplay(
  bounds: Pick<Display, "left" | "top" | "width" | "height">,
  display: Pick<Display, "left" | "top" | "width" | "height">,
): boolean {
  const isNear = (got: number, want: number) => got === want || got === want - 1;
  return bounds.left === display.left && bounds.top === display.top &&
    isNear(bounds.width, display.width) && isNear(bounds.height, display.height);
}

/** Why there is no X11 display to list, or null when `DISPLAY` is set. */
function noX11(): DisplayList | null {
  if (env("DISPLAY")) return null;
  const reason = env("WAYLAND_DISPLAY")
    ? "Wayland without X11: the compositor places windows, DISPLAY is unset"
    : "no X11 display: DISPLAY is unset";
  return { displays: [], source: "none", reason };
}

const XRANDR: Deno.CommandOptions = {
  args: ["--listmonitors"],
  stdout: "piped",
  stderr: "piped",
};

/** The list from xrandr's output. */
function fromXrandr(out: Deno.CommandOutput): DisplayList {
  const text = new TextDecoder().decode(out.success ? out.stdout : out.stderr).trim();
  if (!out.success) return { displays: [], source: "none", reason: `xrandr failed: ${text}` };
  return { displays: parseMonitors(text), source: "xrandr", reason: null };
}

/** No list: xrandr did not run. */
function notRun(error: unknown): DisplayList {
  const reason = error instanceof Deno.errors.NotFound
    ? "xrandr is not installed (Debian: x11-xserver-utils)"
    : `xrandr cannot run: ${(error as Error).message}`;
  return { displays: [], source: "none", reason };
}

/**
 * How long one `xrandr` may take (a few ms when X answers). A server that hangs must not hold
 * the output, the display list or a request that asked for it: the list says why instead.
 */
export const XRANDR_TIMEOUT_MS = 3000;

/** The listing under way, shared by every caller: one `xrandr` at a time, whoever asks. */
let listing: Promise<DisplayList> | null = null;

/**
 * The displays of the X11 display in `DISPLAY` now (`xrandr --listmonitors`). Callers while a
 * listing runs share it (a flood of requests, the poll beside them: one process at a time,
 * answers in order) and its time limit, the first caller's (`XRANDR_TIMEOUT_MS` but in tests);
 * a listing over its limit is stopped.
 */
export function listDisplays(timeoutMs = XRANDR_TIMEOUT_MS): Promise<DisplayList> {
  const none = noX11();
  if (none) return Promise.resolve(none);
  listing ??= runXrandr(timeoutMs).finally(() => listing = null);
  return listing;
}

async function runXrandr(timeoutMs: number): Promise<DisplayList> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const out = await new Deno.Command("xrandr", { ...XRANDR, signal }).output();
    // A list that came just as the limit passed is still the list.
    if (!out.success && signal.aborted) return timedOut(timeoutMs);
    return fromXrandr(out);
  } catch (error) {
    return signal.aborted ? timedOut(timeoutMs) : notRun(error);
  }
}

/** No list: xrandr did not answer in time. */
function timedOut(timeoutMs: number): DisplayList {
  const reason = `xrandr did not answer within ${timeoutMs} ms (is the X server hung?)`;
  return { displays: [], source: "none", reason };
}

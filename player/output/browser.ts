/**
 * The browser that shows the output: a Chromium-family browser (Chromium,
 * Chrome, Edge) found on the PATH or where the installers of Linux, macOS and
 * Windows put it, started with its own empty profile in app mode, kiosk
 * (full screen) or headless, as a child process of the player.
 * @module
 */
import { env } from "./browser_process.ts";
import { isOnDisk } from "../../lib/on_disk.ts";

/** How the browser shows the page. */
export type BrowserMode = "window" | "fullscreen" | "headless";

const PATH_NAMES = [
  "chromium",
  "chromium-browser",
  "google-chrome",
  "google-chrome-stable",
  "microsoft-edge",
  "microsoft-edge-stable",
  "chrome",
  "msedge",
];

const MAC_APPS = [
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
];

const WINDOWS_APPS = [
  "Google\\Chrome\\Application\\chrome.exe",
  "Chromium\\Application\\chrome.exe",
  "Microsoft\\Edge\\Application\\msedge.exe",
];

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** Where a browser may be on this system, in order of preference. */
export function browserCandidates(os: typeof Deno.build.os = Deno.build.os): string[] {
  const windows = os === "windows";
  const sep = windows ? ";" : ":";
  const dirs = (env("PATH") ?? "").split(sep).filter(Boolean);
  const onPath = PATH_NAMES.flatMap((name) =>
    dirs.map((dir) => `${dir}${windows ? "\\" : "/"}${name}${windows ? ".exe" : ""}`)
  );
  if (os === "darwin") return [...onPath, ...MAC_APPS];
  if (windows) {
    const roots = ["PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA"].map(env)
      .filter((r): r is string => !!r);
    return [...onPath, ...roots.flatMap((root) => WINDOWS_APPS.map((app) => `${root}\\${app}`))];
  }
  return [...onPath, "/usr/bin/chromium", "/snap/bin/chromium", "/opt/google/chrome/chrome"];
}

/** The first browser that exists, `preferred` (a path) first; null when there is none. */
export function findBrowser(preferred: string | null = null): string | null {
  if (preferred) return isFile(preferred) ? preferred : null;
  return browserCandidates().find(isFile) ?? null;
}

/** Whether this machine has a screen to open a window on (Linux: X11 or Wayland). */
export function hasDisplay(os: typeof Deno.build.os = Deno.build.os): boolean {
  if (os !== "linux" && os !== "freebsd") return true;
  return !!(env("DISPLAY") || env("WAYLAND_DISPLAY"));
}

/**
 * Whether this machine has a GPU the browser could draw with. On Linux (and FreeBSD) a GPU's
 * driver makes a DRM device (`/dev/dri/card0`, `/dev/dri/renderD128`), or `/dev/nvidia0` for
 * NVIDIA's own driver without DRM; with neither (a VM, a container, a CI machine under Xvfb)
 * Chromium's GPU process finds no device ("drmGetDevices2() has not found any devices"), quits
 * on purpose to be started again on SwiftShader ("Exiting GPU process due to errors during
 * initialization"), and a WebGL2 context the page made meanwhile is lost within 0.2 s, never
 * restored (Chromium 156 under Xvfb: in 12 of 12 starts; a context made later lives): the
 * browser starts with software GL at once there (`browserArgs` `isSoftwareGl`). Elsewhere
 * (macOS, Windows) a GPU is taken to be there. `root` is for tests.
 */
export function hasGpuDevice(os: typeof Deno.build.os = Deno.build.os, root = ""): boolean {
  if (os !== "linux" && os !== "freebsd") return true;
  if (isOnDisk(`${root}/dev/nvidia0`)) return true;
  try {
    for (const entry of Deno.readDirSync(`${root}/dev/dri`)) {
      if (/^(card|renderD)\d+$/.test(entry.name)) return true;
    }
  } catch {
    // No /dev/dri: no DRM device.
  }
  return false;
}

/** The page a headless browser, and each page the player opens, starts on. */
export const START_PAGE = "about:blank";

/**
 * The address an app window starts on: the page server's root, `<origin>/`, which holds no
 * secret (the command line is anyone's to read in `ps`; the port alone is no secret on a
 * loopback anyone may scan); the player navigates it to the page over the pipe
 * (`page_setup.ts`). Not `about:blank`: `--app=about:blank` opens a tabbed window (143 px of
 * browser bars above the page under Xvfb, against none for `--app=<origin>/` navigated in it).
 */
export function appStart(pageUrl: string): string {
  return `${new URL(pageUrl).origin}/`;
}

/** A window's rectangle on the desktop. */
export interface WindowRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The window's size, and its place when its display's rectangle is known. */
function windowArgs(
  mode: BrowserMode,
  options: { width: number; height: number; window?: WindowRect | null },
): string[] {
  // Headless: nobody sees the window, and the browser's copy of the canvas into it costs by
  // its size (64 against 34 ms of CPU a 1080p frame of the demo show at render scale 0.35).
  // Pictures and recordings are the canvas's, at the display's size.
  if (mode === "headless") return ["--window-size=640,360"];
  const rect = options.window;
  if (!rect) {
    return [`--window-size=${Math.max(640, options.width)},${Math.max(360, options.height)}`];
  }
  // On its display from the first paint: a window moved or resized there after it opened
  // showed a light page until its next frame (seconds when its GPU had failed, under Xvfb;
  // docs/output.md "A clean picture").
  return [
    `--window-size=${rect.width},${rect.height}`,
    `--window-position=${rect.left},${rect.top}`,
  ];
}

/**
 * The arguments every output browser gets whatever its mode: nothing of the browser's own
 * (no first-run page, prompt, update, sync, translation or info bar) and no throttling.
 */
const SHOW_ONLY_ARGS: readonly string[] = [
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-translate",
  "--disable-features=HttpsUpgrades,Translate,MediaRouter",
  // The show plays without a click; throttling would slow a hidden or covered output.
  "--autoplay-policy=no-user-gesture-required",
  "--disable-background-timer-throttling",
  "--disable-renderer-backgrounding",
  "--disable-backgrounding-occluded-windows",
  "--password-store=basic",
  // Nothing but the show: no bar across the picture. Chromium puts its startup info bars
  // (the warning "You are using an unsupported command-line flag" of `--no-sandbox` and
  // `--use-fake-ui-for-media-stream`, Google API keys missing, the default-browser prompt)
  // over the first window unless `--test-type` is given or in kiosk
  // (`chrome/browser/ui/startup/infobar_utils.cc`); the flag changes nothing else a show
  // uses (ChromeDriver passes it to every browser it starts). `--disable-infobars` no
  // longer exists. Without `--enable-automation` (never passed) there is no "controlled by
  // automated test software" bar.
  "--test-type",
];

/**
 * The browser's arguments for `mode`, with the profile in `profileDir`: its DevTools on the
 * pipe (`browser_process.ts`), no port, the sandbox on unless `isSandboxOff`, and its start
 * page: `START_PAGE` headless, `appStart(pageUrl)` in a window, never the page's address
 * (navigated to over the pipe).
 */
export function browserArgs(
  mode: BrowserMode,
  options: {
    profileDir: string;
    /** The output page's address: only its origin is on the command line. */
    pageUrl: string;
    width: number;
    height: number;
    /** The sandbox cannot run on this machine (`supervisor.ts` says why, once). */
    isSandboxOff?: boolean;
    /** Software GL even with a screen: the GPU gave the page no WebGL2. */
    isSoftwareGl?: boolean;
    /** Where the window opens: its display's rectangle (`window_state.ts`); none headless. */
    window?: WindowRect | null;
  },
): string[] {
  const common = [
    `--user-data-dir=${options.profileDir}`,
    ...SHOW_ONLY_ARGS,
    // Without a GPU (a VM, a virtual display), WebGL falls back to software GL.
    "--enable-unsafe-swiftshader",
    ...windowArgs(mode, options),
    // The player drives the browser through DevTools on fds 3 and 4: no port to reach it by.
    "--remote-debugging-pipe",
    // Never as root (`browser_user.ts`); off only where the sandbox cannot run.
    ...(options.isSandboxOff ? ["--no-sandbox"] : []),
    // Software GL (SwiftShader) draws WebGL2 without a GPU.
    ...(options.isSoftwareGl || mode === "headless"
      ? ["--use-gl=angle", "--use-angle=swiftshader"]
      : []),
  ];
  if (mode === "headless") {
    // A fake camera stands for getUserMedia, which has no one to grant it on a machine
    // without a screen.
    return [
      ...common,
      "--headless=new",
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      START_PAGE,
    ];
  }
  const show = mode === "fullscreen" ? ["--kiosk", "--start-fullscreen"] : [];
  return [
    ...common,
    "--use-fake-ui-for-media-stream",
    // App mode: Chromium shows no "To exit full screen, press and hold Esc" bubble over a
    // window it makes full screen only then (`IsRunningInAppMode()`, `--kiosk` or this flag:
    // `exclusive_access_manager.cc`, `app_mode_utils.cc`; docs/output.md "Displays").
    "--force-app-mode",
    ...show,
    `--app=${appStart(options.pageUrl)}`,
  ];
}

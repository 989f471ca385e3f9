/**
 * Starts the output's browser with its DevTools on a pipe: the browser's
 * fd 3 (what it reads) and fd 4 (what it writes), as `--remote-debugging-pipe`
 * wants. `Deno.Command` hands a child only stdin, stdout and stderr; Deno's
 * `node:child_process` hands it more (`stdio` with five entries: a socket
 * pair each, measured under Deno 2.9.6), and can start it as another user
 * (`uid`, `gid`, the supplementary groups cleared: measured). When the
 * player ends, even by SIGKILL, its ends of the pipe close and Chromium
 * exits with all its helpers (0 processes of its profile left 0.3 s after a
 * `kill -9` of the player, headless, sandboxed, as uid 65534).
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { DevTools } from "./devtools.ts";

/** An account the browser runs as (`browser_user.ts`). */
export interface BrowserAccount {
  /** Its user name. */
  name: string;
  /** Its user id. */
  uid: number;
  /** Its primary group id. */
  gid: number;
}

/** How a browser exited. */
export interface BrowserExit {
  /** Its exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it, or null. */
  signal: string | null;
}

/** A browser started by `launchBrowser`. */
export interface LaunchedBrowser {
  /** Its process id, or null when it did not start. */
  pid: number | null;
  /** Its DevTools, over the pipe. */
  devtools: DevTools;
  /** Resolves when it has exited, with its last three lines on stderr. */
  exited: Promise<BrowserExit & { lastLines: string[] }>;
  /** Sends it a signal unless it is gone. */
  kill(signal: "SIGTERM" | "SIGKILL"): void;
}

/** The environment variable `name`, or undefined when unset or not granted. */
export function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // not granted: as if unset
  }
}

/**
 * The longest temp folder given to the browser: Chromium's process singleton binds a Unix
 * socket at `<TMPDIR>/org.chromium.Chromium.XXXXXX/SingletonSocket` (45 more characters), and a
 * socket's path holds 104 bytes on macOS, 108 on Linux.
 */
const TEMP_PATH_MAX = 56;

/**
 * The browser's environment: nothing of the player's but the screen and the PATH (its
 * helpers), with HOME, the XDG folders and its temp folder in its profile so that it writes
 * nowhere else: a browser killed (a hang, a restart, the player's end) leaves its process
 * singleton's socket folder behind, now in its profile, removed with it, where one stayed in
 * the system's temp folder for each killed browser before (1,838 in this machine's /tmp after
 * a day of tests). A profile whose path is too long for a socket keeps the system's temp
 * folder (`TEMP_PATH_MAX`).
 * XAUTHORITY is passed on only to a browser of the player's own account (another could not
 * read the file; `docs/output.md` says how to let it onto the screen).
 */
export function browserEnv(profileDir: string, isOtherUser: boolean): Record<string, string> {
  const passed = ["PATH", "DISPLAY", "WAYLAND_DISPLAY", ...(isOtherUser ? [] : ["XAUTHORITY"])];
  const temp = `${profileDir}/.tmp`;
  const out: Record<string, string> = {
    HOME: profileDir,
    XDG_CONFIG_HOME: `${profileDir}/.config`,
    XDG_CACHE_HOME: `${profileDir}/.cache`,
    ...(temp.length <= TEMP_PATH_MAX ? { TMPDIR: temp } : {}),
  };
  for (const name of passed) {
    const value = env(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * The GTK style of the browser's windows: black. Chromium on Linux gives a new X window the
 * background of GTK's theme until its first frame (Adwaita's #f6f5f4: 0.25 to 0.9 s of a light
 * grey window on the show's screen under Xvfb, measured with `ffmpeg -f x11grab` at 20 frames
 * a second); with this style the window is black from its first paint (`docs/output.md`).
 */
export const GTK_STYLE = "window, .background { background-color: #000000; }\n";

/** Makes `dir` (and its parents) with mode 0700, owned by `account` when given. */
function makeOwnDir(dir: string, account: BrowserAccount | null): void {
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (account) Deno.chownSync(dir, account.uid, account.gid);
}

/**
 * Writes `GTK_STYLE` for GTK 3 and 4 into the browser's config folder (`XDG_CONFIG_HOME` of
 * `env`, in its profile: `browserEnv`), owned by `account` when given. Nothing without the
 * folder in `env` (a browser on macOS or Windows reads no GTK style, and finds none).
 */
export function writeBrowserStyle(
  env: Record<string, string>,
  account: BrowserAccount | null,
): void {
  const config = env.XDG_CONFIG_HOME;
  if (!config) return;
  for (const dir of [config, `${config}/gtk-3.0`, `${config}/gtk-4.0`]) makeOwnDir(dir, account);
  for (const version of ["gtk-3.0", "gtk-4.0"]) {
    const path = `${config}/${version}/gtk.css`;
    Deno.writeTextFileSync(path, GTK_STYLE, { mode: 0o600 });
    if (account) Deno.chownSync(path, account.uid, account.gid);
  }
}

/**
 * Starts `program` with `args`, its DevTools on the pipe, as `account` when given, its GTK
 * style written first (`writeBrowserStyle`; a failure there leaves the first paint grey).
 */
export function launchBrowser(
  program: string,
  options: { args: string[]; env: Record<string, string>; account: BrowserAccount | null },
): LaunchedBrowser {
  try {
    // The temp folder `browserEnv` gives must exist: Chromium makes its singleton's there.
    if (options.env.TMPDIR) makeOwnDir(options.env.TMPDIR, options.account);
  } catch {
    delete options.env.TMPDIR; // the system's temp folder rather than no show
  }
  try {
    writeBrowserStyle(options.env, options.account);
  } catch {
    // A grey first paint rather than no show.
  }
  const child = spawn(program, options.args, {
    stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    env: options.env,
    ...(options.account ? { uid: options.account.uid, gid: options.account.gid } : {}),
  });
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  const devtools = new DevTools((message) => toBrowser.write(message));
  toBrowser.on("error", () => devtools.closed());
  fromBrowser.on("data", (chunk: Uint8Array) => devtools.receive(chunk));
  fromBrowser.on("close", () => devtools.closed());
  fromBrowser.on("error", () => devtools.closed());
  const lastLines = keepLastLines(child);
  const exited = new Promise<BrowserExit>((resolve) => {
    // Its last lines may come after its exit: they are waited for a moment (a helper that
    // kept stderr open would hold 'close' back).
    child.on("exit", (code, signal) => {
      const timer = setTimeout(() => resolve({ code, signal }), 1000);
      child.on("close", () => {
        clearTimeout(timer);
        resolve({ code, signal });
      });
    });
    child.on("error", (error) => {
      lastLines.push(String(error));
      resolve({ code: null, signal: null });
    });
  }).then((exit) => {
    devtools.closed();
    return { ...exit, lastLines: lastLines.slice(-3) };
  });
  return {
    pid: child.pid ?? null,
    devtools,
    exited,
    kill: (signal) => {
      try {
        child.kill(signal);
      } catch {
        // gone meanwhile
      }
    },
  };
}

/** Keeps the browser's last lines on stderr (for the log when it exits). */
function keepLastLines(child: ChildProcess): string[] {
  const lines: string[] = [];
  const decoder = new TextDecoder();
  child.stderr?.on("data", (chunk: Uint8Array) => {
    // Chromium talks of D-Bus at every start on a machine without a session bus: noise.
    const said = decoder.decode(chunk, { stream: true }).split("\n")
      .filter((l) =>
        l.trim() && (/sandbox/i.test(l) || !/dbus|zygote|unexpected operator/i.test(l))
      );
    lines.push(...said);
    lines.splice(0, Math.max(0, lines.length - 3));
  });
  child.stderr?.on("error", () => {});
  return lines;
}

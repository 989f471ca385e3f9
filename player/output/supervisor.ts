/**
 * Keeps the output's browser running: a child process of the player with a
 * fresh profile each launch; when it exits unasked (killed, crashed) it is
 * started again at once, later ones after a short backoff that never exceeds
 * two seconds. The show never waits for it.
 * @module
 */
import { browserArgs, type BrowserMode, isRoot } from "./browser.ts";

/** Options of `BrowserSupervisor`. */
export interface SupervisorOptions {
  program: string;
  mode: BrowserMode;
  url: string;
  width: number;
  height: number;
  log: (level: "info" | "warn" | "error", message: string) => void;
  /** Told after each start of the browser. */
  onStart?: () => void;
}

/** Backoff after an unasked exit, by how many came in a row within 10 s. */
const BACKOFF_MS = [0, 250, 500, 1000, 2000];
/** Exits in a row without the page loading, after which it is tried every `RETRY_MS` only. */
const GIVE_UP_AFTER = 5;
const RETRY_MS = 30_000;
/** How long the browser started to hand an address to the running one may take to exit. */
const HAND_OFF_MS = 10_000;

/** One supervised browser. */
export class BrowserSupervisor {
  #options: SupervisorOptions;
  #child: Deno.ChildProcess | null = null;
  #profile: string | null = null;
  #isClosed = false;
  #exits: number[] = [];
  /** Exits since the page last loaded: a browser that never shows it is not started every 2 s. */
  #exitsWithoutPage = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The exit of the browser running now, handled (its profile queued for removal). */
  #exitHandled: Promise<void> = Promise.resolve();
  /** Browsers started to hand an address to the running one, until they exit. */
  #handoffs = new Set<Deno.ChildProcess>();
  /** Profiles being removed; `close` waits for them. */
  #removals: Promise<void> = Promise.resolve();
  /** Start the browser with software GL (the GPU gave the page no WebGL2). */
  isSoftwareGl = false;
  /** When the browser last exited unasked (performance.now), until the page is back. */
  exitedAt: number | null = null;
  /** Browser launches, the first included (handoffs not counted). */
  starts = 0;

  constructor(options: SupervisorOptions) {
    this.#options = options;
  }

  /** The profile of the browser running now (its DevTools port is named there). */
  get profileDir(): string | null {
    return this.#child ? this.#profile : null;
  }

  /** How the browser shows its pages. */
  get mode(): BrowserMode {
    return this.#options.mode;
  }

  /** The browser's process id, while one runs. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** How many browsers started to hand an address over still run. */
  get handoffs(): number {
    return this.#handoffs.size;
  }

  /** Starts the browser. */
  start(): void {
    if (this.#isClosed) return;
    const profile = Deno.makeTempDirSync({ prefix: "cueport-output-" });
    this.#profile = profile;
    const { program, mode, url, width, height } = this.#options;
    let child: Deno.ChildProcess;
    try {
      const args = browserArgs(mode, url, {
        profileDir: profile,
        width,
        height,
        isRoot: isRoot(profile),
        isSoftwareGl: this.isSoftwareGl,
      });
      // Not under `nice`: on a machine kept busy by other programs a niced browser got a few
      // percent of a core (3.2-5.7 frames a second of the demo show at 1080p and scale 0.35
      // beside `stress-ng --cpu 4`, against 10.3 without; its page's hello 6 s after start
      // against 5). The output is the show; it lowers its render scale instead
      // (`page/render_scale.js`).
      child = spawn(program, args);
    } catch (error) {
      this.#options.log("error", `Cannot start the output browser ${program}: ${error}`);
      this.#removeProfile(profile);
      return;
    }
    this.#child = child;
    this.starts++;
    this.#options.onStart?.();
    const lastLines = keepLastLines(child.stderr);
    this.#exitHandled = child.status.then(async (status) =>
      this.#exited(child, profile, status, await lastLines)
    );
  }

  /**
   * Opens `url` in an app window (no tab strip, no address bar) of the browser running now:
   * the browser started again on the same profile hands the address to the running one and
   * exits (Chromium's one process a profile). False in headless (no windows), when no browser
   * runs, and when the one started did not hand off (it is stopped: it would be a browser of
   * its own).
   */
  async openAppWindow(url: string): Promise<boolean> {
    const profile = this.profileDir;
    if (!profile || this.#options.mode === "headless" || this.#isClosed) return false;
    const args = [`--user-data-dir=${profile}`, ...(isRoot(profile) ? ["--no-sandbox"] : [])];
    const child = new Deno.Command(this.#options.program, {
      args: [...args, `--app=${url}`],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    this.#handoffs.add(child);
    let isLate = false;
    const timer = setTimeout(() => {
      isLate = true;
      kill(child);
    }, HAND_OFF_MS);
    const status = await child.status;
    clearTimeout(timer);
    this.#handoffs.delete(child);
    if (!status.success && !this.#isClosed) {
      const how = isLate
        ? `still running after ${HAND_OFF_MS / 1000} s: stopped`
        : status.signal
        ? `signal ${status.signal}`
        : `code ${status.code}`;
      this.#options.log(
        "warn",
        `The output browser started to open ${url} did not hand it to the running one (${how})`,
      );
    }
    return status.success;
  }

  /** The page of the browser running now loaded: the browser works. */
  pageLoaded(): void {
    this.#exitsWithoutPage = 0;
  }

  /** Starts the browser again now (it is killed; its exit starts the next one at once). */
  restart(): void {
    this.#exits = [];
    try {
      this.#child?.kill("SIGKILL");
    } catch {
      // already gone: its exit starts the next
    }
  }

  /** Stops the browser and removes its profile. */
  async close(): Promise<void> {
    this.#isClosed = true;
    clearTimeout(this.#timer);
    // A handoff under way would become a browser of its own once this one exits.
    const handoffs = [...this.#handoffs];
    for (const handoff of handoffs) kill(handoff);
    await Promise.all(handoffs.map((handoff) => handoff.status));
    const child = this.#child;
    if (!child) return;
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    const timeout = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // gone meanwhile
      }
    }, 3000);
    await this.#exitHandled;
    clearTimeout(timeout);
    await this.#removals;
  }

  #exited(
    child: Deno.ChildProcess,
    profile: string,
    status: Deno.CommandStatus,
    lastLines: string[],
  ): void {
    if (this.#child === child) this.#child = null;
    this.#removeProfile(profile);
    if (this.#isClosed) return;
    const now = performance.now();
    this.exitedAt = now;
    this.#exits = [...this.#exits.filter((t) => now - t < 10_000), now];
    this.#exitsWithoutPage++;
    const isGivingUp = this.#exitsWithoutPage >= GIVE_UP_AFTER;
    const delay = isGivingUp
      ? RETRY_MS
      : BACKOFF_MS[Math.min(this.#exits.length - 1, BACKOFF_MS.length - 1)]!;
    // Said for each exit until it keeps failing; then once, and at each try after.
    if (this.#exitsWithoutPage <= GIVE_UP_AFTER || this.#exitsWithoutPage % 10 === 0) {
      const how = status.signal ? `signal ${status.signal}` : `code ${status.code}`;
      const said = lastLines.length > 0 ? `; it said: ${lastLines.join(" | ")}` : "";
      const next = isGivingUp
        ? `it exited ${this.#exitsWithoutPage} times without showing the page: trying again every ${
          RETRY_MS / 1000
        } s`
        : `starting it again in ${delay} ms`;
      this.#options.log("warn", `The output browser exited (${how}); ${next}${said}`);
    }
    this.#timer = setTimeout(() => this.start(), delay);
  }

  #removeProfile(profile: string): void {
    this.#removals = this.#removals.then(() => removeSoon(profile));
  }
}

/** Starts the browser with its stderr piped (its last lines go into the log when it exits). */
function spawn(program: string, args: string[]): Deno.ChildProcess {
  return new Deno.Command(program, { args, stdin: "null", stdout: "null", stderr: "piped" })
    .spawn();
}

/** Kills a child process (SIGKILL) unless it is gone. */
function kill(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch {
    // exited meanwhile
  }
}

/** Removes a profile dir; Chromium's helpers may hold files a moment after it exits. */
async function removeSoon(profile: string): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      await Deno.remove(profile, { recursive: true });
      return;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Reads a browser's stderr to its end, keeping only its last three lines (for the log). */
async function keepLastLines(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  let lines: string[] = [];
  try {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      // Chromium talks of D-Bus at every start on a machine without a session bus: noise.
      const said = text.split("\n").filter((l) => l.trim() && !/dbus|zygote/i.test(l));
      lines = [...lines, ...said].slice(-3);
    }
  } catch {
    // the stream ends with the process
  }
  return lines;
}

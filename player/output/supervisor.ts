/**
 * Keeps the output's browser running: a child process of the player with a
 * fresh profile each launch, driven over its DevTools pipe; when it exits
 * unasked (killed, crashed) it is started again at once, later ones after a
 * short backoff that never exceeds two seconds. The show never waits for it.
 * It never runs as root (`browser_user.ts`), keeps its sandbox on where the
 * sandbox can run, and ends with the player (its pipe closes).
 * @module
 */
import { grantMidi } from "./midi_ports.ts";
import { browserArgs, type BrowserMode, type WindowRect } from "./browser.ts";
import { browserEnv, launchBrowser, type LaunchedBrowser } from "./browser_process.ts";
import { type BrowserRunner, browserRunner } from "./browser_user.ts";
import type { DevTools } from "./devtools.ts";
import { giveScriptToPages, openPage, showPage } from "./page_setup.ts";
import { hidePointer } from "./pointer.ts";
import { type Profile, ProfileDirs } from "./profiles.ts";

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
  /**
   * JavaScript each page of the browser runs before its own scripts (the sockets' per-start
   * secret); asked at each browser start.
   */
  initScript?: () => string;
  /** The rectangle the window opens on, asked at each browser start (`window_state.ts`). */
  windowRect?: () => WindowRect | null;
  /** Where the profiles go (tests); default: `ProfileDirs.forThisAccount()`. */
  profiles?: ProfileDirs;
  /** Who runs the browser (tests); default: `browserRunner` for this account. */
  runner?: BrowserRunner;
  /** Software GL from the first start (no GPU device: `hasGpuDevice`); default: the GPU first. */
  isSoftwareGl?: boolean;
}

/** Backoff after an unasked exit, by how many came in a row within 10 s. */
const BACKOFF_MS = [0, 250, 500, 1000, 2000];
/** Exits in a row without the page loading, after which it is tried every `RETRY_MS` only. */
const GIVE_UP_AFTER = 5;
const RETRY_MS = 30_000;
/** What Chromium says when it finds no sandbox it can use (user namespaces, or setuid helper). */
const NO_SANDBOX = /No usable sandbox|Failed to move to new namespace/i;

/**
 * This account's profiles folder; where it is taken (another account made it first in a shared
 * temp folder), a private one of this start, said once (its stale profiles are not found).
 */
function profileDirs(log: SupervisorOptions["log"]): ProfileDirs {
  try {
    return ProfileDirs.forThisAccount();
  } catch (error) {
    const dir = Deno.makeTempDirSync({ prefix: "cueport-output-" });
    Deno.chmodSync(dir, 0o711); // the browser's account passes through to its profile
    log("error", `Output: ${(error as Error).message}; using ${dir} for now`);
    return new ProfileDirs(`${dir}/profiles`, Deno.statSync(dir).uid ?? 0);
  }
}

/** One supervised browser. */
export class BrowserSupervisor {
  #options: SupervisorOptions;
  readonly #profiles: ProfileDirs;
  readonly #runner: BrowserRunner;
  #browser: LaunchedBrowser | null = null;
  #profile: Profile | null = null;
  #isClosed = false;
  #exits: number[] = [];
  /** Exits since the page last loaded: a browser that never shows it is not started every 2 s. */
  #exitsWithoutPage = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The exit of the browser running now, handled (its profile queued for removal). */
  #exitHandled: Promise<void> = Promise.resolve();
  /** Profiles being removed; `close` waits for them. */
  #removals: Promise<void> = Promise.resolve();
  /** Stale profiles being removed (of players killed before): `close` waits for it. */
  #sweep: Promise<void>;
  #isRefusalSaid = false;
  /** The start script of the browser running now (`initScript`, asked at its start). */
  #script: string | null = null;
  /** Start the browser with software GL (the GPU gave the page no WebGL2). */
  isSoftwareGl = false;
  /** The sandbox cannot run on this machine: the browser starts without it (said once). */
  isSandboxOff = false;
  /** When the browser last exited unasked (performance.now), until the page is back. */
  exitedAt: number | null = null;
  /** Browser launches, the first included. */
  starts = 0;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.isSoftwareGl = options.isSoftwareGl ?? false;
    this.#profiles = options.profiles ?? profileDirs(options.log);
    this.#runner = options.runner ?? browserRunner(this.#profiles.uid === 0);
    this.#sweep = this.#profiles.removeStale().then(
      (n) => n > 0 && options.log("info", `Output: removed ${n} stale browser profile(s)`),
      (error) => options.log("warn", `Output: cannot remove stale browser profiles: ${error}`),
    ).then(() => {});
  }

  /** The profile of the browser running now. */
  get profileDir(): string | null {
    return this.#browser ? this.#profile?.path ?? null : null;
  }

  /** The folder of all profiles of this account's players. */
  get profilesDir(): string {
    return this.#profiles.parent;
  }

  /** The account the browser runs as, null: the player's own (or none: refused). */
  get account(): string | null {
    return this.#runner.kind === "user" ? this.#runner.account.name : null;
  }

  /** How the browser shows its pages. */
  get mode(): BrowserMode {
    return this.#options.mode;
  }

  /** The browser's process id, while one runs. */
  get pid(): number | null {
    return this.#browser?.pid ?? null;
  }

  /** DevTools of the browser running now (its pipe), or null. */
  get devtools(): DevTools | null {
    const devtools = this.#browser?.devtools;
    return devtools && !devtools.isClosed ? devtools : null;
  }

  /** DevTools of the browser running now, waiting up to `timeoutMs` for one being started. */
  async whenRunning(timeoutMs: number): Promise<DevTools> {
    const end = performance.now() + timeoutMs;
    while (!this.devtools && !this.#isClosed && performance.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!this.devtools) throw new Error("the browser is not running");
    return this.devtools;
  }

  /**
   * Opens `url` in a new page of the browser running now (a window of its own with
   * `newWindow`), given the start script before its own scripts: its target id.
   */
  async openPage(
    url: string,
    where: { newWindow?: boolean; width?: number; height?: number } = {},
  ): Promise<string> {
    const devtools = await this.whenRunning(10_000);
    return await openPage(devtools, url, { script: this.#script, ...where });
  }

  /** Starts the browser. */
  start(): void {
    if (this.#isClosed) return;
    const runner = this.#runner;
    if (runner.kind === "refused") {
      if (!this.#isRefusalSaid) this.#options.log("error", `Output: no browser: ${runner.reason}`);
      this.#isRefusalSaid = true;
      return;
    }
    const account = runner.kind === "user" ? runner.account : null;
    const { program, mode, width, height } = this.#options;
    let browser: LaunchedBrowser;
    let profile: Profile;
    try {
      profile = this.#profiles.create(account);
    } catch (error) {
      this.#options.log("error", `Output: cannot make the browser's profile: ${error}`);
      return;
    }
    try {
      const args = browserArgs(mode, {
        profileDir: profile.path,
        pageUrl: this.#options.url,
        width,
        height,
        isSandboxOff: this.isSandboxOff,
        isSoftwareGl: this.isSoftwareGl,
        window: this.#options.windowRect?.() ?? null,
      });
      // Not under `nice`: on a machine kept busy by other programs a niced browser got a few
      // percent of a core (3.2-5.7 frames a second of the demo show at 1080p and scale 0.35
      // beside `stress-ng --cpu 4`, against 10.3 without; its page's hello 6 s after start
      // against 5). The output is the show; it lowers its render scale instead
      // (`page/render_scale.js`).
      const env = browserEnv(profile.path, account !== null);
      browser = launchBrowser(program, { args, env, account });
    } catch (error) {
      this.#options.log("error", `Cannot start the output browser ${program}: ${error}`);
      void profile.release();
      return;
    }
    this.#browser = browser;
    this.#profile = profile;
    this.starts++;
    this.#options.onStart?.();
    const script = this.#options.initScript?.() ?? null;
    this.#script = script;
    giveScriptToPages(browser.devtools, script)
      .then(() => grantMidi(browser.devtools, this.#options.url))
      .then(() => showPage(browser.devtools, this.#options.url, script))
      .catch((error) => {
        // Gone meanwhile: its exit is said.
        if (this.#browser !== browser || browser.devtools.isClosed) return;
        this.#options.log("warn", `Output: the browser did not show the page: ${error.message}`);
      });
    this.#exitHandled = browser.exited.then((exit) => this.#exited(browser, profile, exit));
  }

  /** The page of the browser running now loaded: the browser works. */
  pageLoaded(): void {
    this.#exitsWithoutPage = 0;
    // A pointer resting on a window keeps the browser's arrow until the page says none.
    const devtools = this.#browser?.devtools;
    if (devtools && this.#options.mode !== "headless") {
      hidePointer(devtools, this.#options.url).catch(() => {}); // gone meanwhile
    }
  }

  /** Starts the browser again now (it is killed; its exit starts the next one at once). */
  restart(): void {
    this.#exits = [];
    this.#browser?.kill("SIGKILL");
  }

  /** Stops the browser and removes its profile. */
  async close(): Promise<void> {
    this.#isClosed = true;
    clearTimeout(this.#timer);
    const browser = this.#browser;
    if (browser) {
      browser.kill("SIGTERM");
      const timeout = setTimeout(() => browser.kill("SIGKILL"), 3000);
      await this.#exitHandled;
      clearTimeout(timeout);
    }
    await this.#profile?.release();
    await this.#removals;
    await this.#sweep;
  }

  #exited(
    browser: LaunchedBrowser,
    profile: Profile,
    exit: { code: number | null; signal: string | null; lastLines: string[] },
  ): void {
    if (this.#browser === browser) this.#browser = null;
    // Removed beside the next start: its helpers may hold files a moment after it exits.
    this.#removals = this.#removals.then(() => profile.release());
    if (this.#isClosed) return;
    if (!this.isSandboxOff && exit.lastLines.some((l) => NO_SANDBOX.test(l))) {
      this.#sandboxUnusable(exit.lastLines);
      this.start();
      return;
    }
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
      const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
      const said = exit.lastLines.length > 0 ? `; it said: ${exit.lastLines.join(" | ")}` : "";
      const next = isGivingUp
        ? `it exited ${this.#exitsWithoutPage} times without showing the page: trying again every ${
          RETRY_MS / 1000
        } s`
        : `starting it again in ${delay} ms`;
      this.#options.log("warn", `The output browser exited (${how}); ${next}${said}`);
    }
    this.#timer = setTimeout(() => this.start(), delay);
  }

  /**
   * The browser found no sandbox it can use (user namespaces off, or forbidden to the service):
   * it runs without one from now on, as an account that is never root, and the log says so once,
   * with what to change (docs/security.md).
   */
  #sandboxUnusable(lastLines: string[]): void {
    this.isSandboxOff = true;
    const who = this.account ?? "the player's own account";
    this.#options.log(
      "error",
      `Output: the browser's sandbox cannot run on this machine (it said: ${
        lastLines.join(" | ")
      }); the browser runs without it, as ${who}. Allow unprivileged user namespaces ` +
        "(sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0) " +
        "to have it back (docs/security.md)",
    );
  }
}

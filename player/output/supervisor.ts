/**
 * Keeps the output's browser running: a child process of the player with a
 * fresh profile each launch; when it exits unasked (killed, crashed) it is
 * started again at once, later ones after a short backoff that never exceeds
 * two seconds. The show never waits for it.
 * @module
 */
import { browserArgs, type BrowserMode } from "./browser.ts";

/** Options of `BrowserSupervisor`. */
export interface SupervisorOptions {
  program: string;
  mode: BrowserMode;
  url: string;
  width: number;
  height: number;
  log: (level: "info" | "warn" | "error", message: string) => void;
}

/** Backoff after an unasked exit, by how many came in a row within 10 s. */
const BACKOFF_MS = [0, 250, 500, 1000, 2000];

/** One supervised browser. */
export class BrowserSupervisor {
  #options: SupervisorOptions;
  #child: Deno.ChildProcess | null = null;
  #profile: string | null = null;
  #isClosed = false;
  #exits: number[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the browser last exited unasked (performance.now), until the page is back. */
  exitedAt: number | null = null;

  constructor(options: SupervisorOptions) {
    this.#options = options;
  }

  /** The browser's process id, while one runs. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** Starts the browser. */
  start(): void {
    if (this.#isClosed) return;
    const profile = Deno.makeTempDirSync({ prefix: "cueport-output-" });
    this.#profile = profile;
    const { program, mode, url, width, height } = this.#options;
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(program, {
        args: browserArgs(mode, url, { profileDir: profile, width, height }),
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
    } catch (error) {
      this.#options.log("error", `Cannot start the output browser ${program}: ${error}`);
      this.#removeProfile(profile);
      return;
    }
    this.#child = child;
    child.status.then((status) => this.#exited(child, profile, status));
  }

  /** Stops the browser and removes its profile. */
  async close(): Promise<void> {
    this.#isClosed = true;
    clearTimeout(this.#timer);
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
    await child.status;
    clearTimeout(timeout);
  }

  #exited(child: Deno.ChildProcess, profile: string, status: Deno.CommandStatus): void {
    if (this.#child === child) this.#child = null;
    this.#removeProfile(profile);
    if (this.#isClosed) return;
    const now = performance.now();
    this.exitedAt = now;
    this.#exits = [...this.#exits.filter((t) => now - t < 10_000), now];
    const delay = BACKOFF_MS[Math.min(this.#exits.length - 1, BACKOFF_MS.length - 1)]!;
    const how = status.signal ? `signal ${status.signal}` : `code ${status.code}`;
    this.#options.log(
      "warn",
      `The output browser exited (${how}); starting it again in ${delay} ms`,
    );
    this.#timer = setTimeout(() => this.start(), delay);
  }

  #removeProfile(profile: string): void {
    // Chromium's helpers may still hold files a moment after it exits.
    setTimeout(() => Deno.remove(profile, { recursive: true }).catch(() => {}), 500);
  }
}

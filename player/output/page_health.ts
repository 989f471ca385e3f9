/**
 * Watching the output page: its loads (and how long a relaunch took), a GPU
 * that gives it no working WebGL2 (the browser starts again with software
 * GL), a page that does not load, and a machine that cannot keep up.
 * @module
 */
import type { FromPage } from "../../protocol/output.ts";
import type { BrowserSupervisor } from "./supervisor.ts";

/** How long a started browser's page may take to say hello before it is started again. */
export const LOAD_TIMEOUT_MS = 8000;

type Log = (level: "info" | "warn" | "error", message: string) => void;

/** The health of the page of one supervised browser. */
export class PageHealth {
  readonly #supervisor: BrowserSupervisor;
  readonly #log: Log;
  #loadTimer: ReturnType<typeof setTimeout> | undefined;
  #isClosed = false;
  #lastSlowWarning = -Infinity;
  /** Pages loaded before the browser was started with software GL. */
  #loadsBeforeSoftwareGl = 0;
  /** How many times a page said hello (a browser start, a reload). */
  pageLoads = 0;
  /** The last recovery after the browser exited, ms from exit to the page's hello. */
  lastRecoveryMs: number | null = null;

  constructor(supervisor: BrowserSupervisor, log: Log) {
    this.#supervisor = supervisor;
    this.#log = log;
  }

  /**
   * The browser started: a page that does not say hello within `LOAD_TIMEOUT_MS` is
   * stuck (a GPU that hangs its renderer, seen under Xvfb): it starts again, with software GL.
   */
  browserStarted(): void {
    clearTimeout(this.#loadTimer);
    const loads = this.pageLoads;
    this.#loadTimer = setTimeout(() => {
      if (this.pageLoads > loads || this.#isClosed) return;
      this.#log("warn", `Output: the page did not load within ${LOAD_TIMEOUT_MS} ms`);
      if (this.#supervisor.isSoftwareGl) this.#supervisor.restart();
      else this.glLost();
    }, LOAD_TIMEOUT_MS);
  }

  /** A page said hello with its renderer; false when it has no working WebGL2. */
  hello(gl: string): boolean {
    this.pageLoads++;
    this.#supervisor.pageLoaded();
    if (gl === "unavailable") {
      this.glLost();
      return false;
    }
    const exitedAt = this.#supervisor.exitedAt;
    if (exitedAt === null) {
      this.#log("info", `Output page connected (${gl})`);
      return true;
    }
    this.lastRecoveryMs = Math.round(performance.now() - exitedAt);
    this.#supervisor.exitedAt = null;
    this.#log("info", `Output back ${this.lastRecoveryMs} ms after the browser exited`);
    return true;
  }

  /** The GPU gave the page no working WebGL2: the browser starts again with software GL. */
  glLost(): void {
    if (this.#supervisor.isSoftwareGl) {
      // Only a page of the software-GL browser says so of it (the old one may still talk).
      if (this.pageLoads > this.#loadsBeforeSoftwareGl) {
        this.#log("error", "Output: WebGL2 fails even with software GL: nothing is drawn");
      }
      return;
    }
    this.#loadsBeforeSoftwareGl = this.pageLoads;
    this.#log(
      "warn",
      "Output: the GPU gives no working WebGL2; starting the browser with software GL",
    );
    this.#supervisor.isSoftwareGl = true;
    this.#supervisor.restart();
  }

  /**
   * Says, at most once a minute, when the page cannot keep up: a layer more than three
   * frames off the clock, or fewer than half the display's frames drawn.
   */
  report(report: Extract<FromPage, { type: "report" }>, fps: number): void {
    const isLate = report.driftMs > 3000 / fps;
    const isSlow = report.frames + report.dropped > 0 && report.frames < fps / 2;
    const now = performance.now();
    if (!(isLate || isSlow) || now - this.#lastSlowWarning < 60_000) return;
    this.#lastSlowWarning = now;
    this.#log(
      "warn",
      `Output: the page drew ${report.frames} frames in the last second (display ${fps} fps), ` +
        `${Math.round(report.driftMs)} ms off the clock at most: the machine cannot keep up`,
    );
  }

  close(): void {
    this.#isClosed = true;
    clearTimeout(this.#loadTimer);
  }
}

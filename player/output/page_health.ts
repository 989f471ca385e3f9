/**
 * Watching the output page: its loads (and how long a relaunch took), a GPU
 * that gives it no working WebGL2 (the page says so: the browser starts again
 * with software GL), a browser or page that makes no progress for a long
 * time, a machine that cannot keep up, and a page whose GL objects keep growing.
 *
 * Slow is not dead: a browser that starts slowly on a busy machine (its CPU
 * time grows, the page's files are asked for, its socket connects) and a page
 * that reports, however few frames it draws, are never started again. Only
 * `NO_PROGRESS_MS` without any of these restarts the browser, and each such
 * restart in a row waits twice as long before the next.
 * @module
 */
import type { FromPage, GlObjects } from "../../protocol/output.ts";
import { loadAverage, processTreeCpuMs } from "./process_cpu.ts";
import { JUDGED_AFTER_MS, RENDER_SCALES } from "./page/render_scale.js";

/** How long a browser and its page may show no progress at all before it is started again. */
export const NO_PROGRESS_MS = 60_000;
/** The longest wait for progress (after restarts that did not help, each twice as long). */
export const NO_PROGRESS_MAX_MS = 600_000;
/**
 * The bound for a page that said it is hidden (a minimized window): browsers may run its
 * timers, and so its reports, only once a minute (Chromium's intensive wake-up throttling).
 */
export const HIDDEN_BOUND_MS = 300_000;
/**
 * GL objects a page may hold beyond those of its first report before the log says so, once per
 * page: a show's media and ISF targets are a few hundred; a leak of a refused program a
 * keystroke passes this in an evening of editing (`docs/output.md`, "All night").
 */
export const GL_OBJECTS_GROWTH_WARN = 1024;
/** The page's smallest render scale: a page slow there has no smaller picture to draw. */
const SMALLEST_SCALE = Math.min(...RENDER_SCALES);
/** How often progress is looked at (the browser's CPU time read). */
export const CHECK_MS = 5000;

type Log = (level: "info" | "warn" | "error", message: string) => void;

/** What the health asks of the browser's supervisor (`BrowserSupervisor`). */
export interface SupervisedBrowser {
  isSoftwareGl: boolean;
  exitedAt: number | null;
  readonly pid: number | null;
  restart(): void;
  pageLoaded(): void;
}

/** Options of `PageHealth`: the log, and for tests the clock, timers and CPU reader. */
export interface PageHealthOptions {
  log: Log;
  /** ms, monotonic (performance.now). */
  now?: () => number;
  setInterval?: (fn: () => void, ms: number) => number;
  clearInterval?: (id: number) => void;
  /** CPU ms the browser (`pid`) and its processes used, or null when unknown. */
  cpuMs?: (pid: number) => number | null;
  /** The machine's 1-minute load average, or null when unknown (`process_cpu.ts`'s by default). */
  loadAverage?: () => number | null;
}

/** The health of the page of one supervised browser. */
export class PageHealth {
  readonly #supervisor: SupervisedBrowser;
  readonly #log: Log;
  readonly #now: () => number;
  readonly #cpuMs: (pid: number) => number | null;
  readonly #loadAverage: () => number | null;
  readonly #clearInterval: (id: number) => void;
  readonly #timer: number;
  #isClosed = false;
  #lastSlowWarning = -Infinity;
  /** Pages loaded before the browser was started with software GL. */
  #loadsBeforeSoftwareGl = 0;
  /** When the browser running now started, and whether its page said hello. */
  #startedAt = 0;
  #hasPage = false;
  /** The browser's CPU time at the last check, ms (null: unknown). */
  #cpu: number | null = null;
  /** Whether the page last said it is hidden (a browser may wake its timers once a minute). */
  #isHidden = false;
  /** The GL objects of the page's first report that had them (null: none yet), and whether
   * their growth was said. */
  #glObjectsAtStart: number | null = null;
  #hasToldGlGrowth = false;
  /** When the page's first report came (null: none yet); see `report`. */
  #firstReportAt: number | null = null;
  /** Restarts in a row for want of progress (the next waits twice as long). */
  #stuckRestarts = 0;
  /** When the browser or its page last showed progress (`now()`). */
  lastProgressAt: number;
  /** How many times a page said hello (a browser start, a reload). */
  pageLoads = 0;
  /** The last recovery after the browser exited, ms from exit to the page's hello. */
  lastRecoveryMs: number | null = null;

  constructor(supervisor: SupervisedBrowser, options: PageHealthOptions) {
    this.#supervisor = supervisor;
    this.#log = options.log;
    this.#now = options.now ?? (() => performance.now());
    this.#cpuMs = options.cpuMs ?? processTreeCpuMs;
    this.#loadAverage = options.loadAverage ?? loadAverage;
    this.#clearInterval = options.clearInterval ?? ((id) => clearInterval(id));
    this.lastProgressAt = this.#now();
    const every = options.setInterval ?? ((fn, ms) => setInterval(fn, ms) as unknown as number);
    this.#timer = every(() => this.#check(), CHECK_MS);
  }

  /** How long no progress may last now: `NO_PROGRESS_MS`, doubled by each restart in a row. */
  get noProgressBoundMs(): number {
    return Math.min(NO_PROGRESS_MS * 2 ** this.#stuckRestarts, NO_PROGRESS_MAX_MS);
  }

  /** The browser started: its start is progress, and its page has yet to say hello. */
  browserStarted(): void {
    this.#startedAt = this.#now();
    this.#hasPage = false;
    this.#cpu = null;
    this.progress();
  }

  /** A sign of life: the page asked for a file, its socket connected, it sent a message. */
  progress(): void {
    this.lastProgressAt = this.#now();
  }

  /** A page said hello with its renderer; false when it has no working WebGL2. */
  hello(gl: string): boolean {
    this.pageLoads++;
    this.#glObjectsAtStart = null;
    this.#firstReportAt = null;
    this.#hasToldGlGrowth = false;
    this.#hasPage = true;
    this.#stuckRestarts = 0;
    this.progress();
    this.#supervisor.pageLoaded();
    // A page without WebGL2 says so; its reports say whether it draws (`page_socket.ts`).
    if (gl === "unavailable") return false;
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

  /**
   * The page has no working WebGL2, as it said and its reports show (`page_socket.ts`: a page's
   * word alone restarts nothing): the browser starts again with software GL. Not while a shader
   * is suspected of the stall (`isShaderSuspected`, `quarantine.ts`): a GPU's watchdog resets
   * the context of a draw that hangs, and the quarantine takes the shader off and starts the
   * browser again, with the GPU; only a GL lost again with no shader to blame is the GPU's.
   */
  glLost(isShaderSuspected = false): void {
    if (isShaderSuspected) {
      this.#log(
        "info",
        "Output: the page's WebGL2 is lost while a shader is suspected of the stall: not the GPU's fault, no software GL",
      );
      return;
    }
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
      "Output: the page says the GPU gives no working WebGL2 and draws no frame; starting the browser with software GL",
    );
    this.#supervisor.isSoftwareGl = true;
    this.#supervisor.restart();
  }

  /**
   * Says, at most once a minute, when the page cannot keep up: a layer more than three frames
   * off the clock, or fewer than half the display's frames drawn at the smallest render scale
   * (above it, the page draws a smaller picture and its own line says so). Not in the
   * `JUDGED_AFTER_MS` from the page's first report, about the first seconds its render scale does
   * not judge either: a software-GL start said it in its first second, before its programs had
   * compiled.
   */
  report(report: Extract<FromPage, { type: "report" }>, fps: number): void {
    this.progress();
    if (report.glObjects) this.#watchGlObjects(report.glObjects);
    this.#isHidden = report.visibility !== "visible";
    const now = this.#now();
    this.#firstReportAt ??= now;
    if (now - this.#firstReportAt < JUDGED_AFTER_MS) return;
    const isLate = report.driftMs > 3000 / fps;
    const isSlow = report.frames + report.dropped > 0 && report.frames < fps / 2 &&
      report.renderScale <= SMALLEST_SCALE;
    if (!(isLate || isSlow) || now - this.#lastSlowWarning < 60_000) return;
    this.#lastSlowWarning = now;
    this.#log(
      "warn",
      `Output: the page drew ${report.frames} frames in the last second (display ${fps} fps) ` +
        `at scale ${report.renderScale}, ${Math.round(report.driftMs)} ms off the clock at ` +
        "most: the machine cannot keep up",
    );
  }

  /** Says once per page when its GL objects grew past `GL_OBJECTS_GROWTH_WARN` over its first. */
  #watchGlObjects(objects: GlObjects): void {
    const total = Object.values(objects).reduce((a, b) => a + b, 0);
    this.#glObjectsAtStart ??= total;
    const growth = total - this.#glObjectsAtStart;
    if (this.#hasToldGlGrowth || growth < GL_OBJECTS_GROWTH_WARN) return;
    this.#hasToldGlGrowth = true;
    const kinds = Object.entries(objects).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`);
    this.#log(
      "warn",
      `Output: the page holds ${total} GL objects, ${growth} more than when it started (${
        kinds.join(", ")
      }): a leak, or a show that grew; /health output.glObjects follows them`,
    );
  }

  close(): void {
    this.#isClosed = true;
    this.#clearInterval(this.#timer);
  }

  /**
   * Looks for progress: before the page's hello, the browser's CPU time growing is progress
   * (it is starting); after it, only the page's messages are (a page spinning in a loop uses
   * CPU too). No progress for the bound: the browser starts again, said with the figures.
   */
  #check(): void {
    const pid = this.#supervisor.pid;
    if (this.#isClosed || pid === null) return;
    const cpu = this.#cpuMs(pid);
    if (!this.#hasPage && cpu !== null && this.#cpu !== null && cpu > this.#cpu) this.progress();
    this.#cpu = cpu;
    const now = this.#now();
    const silentMs = now - this.lastProgressAt;
    const bound = this.#hasPage && this.#isHidden
      ? Math.max(this.noProgressBoundMs, HIDDEN_BOUND_MS)
      : this.noProgressBoundMs;
    if (silentMs < bound) return;
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const what = this.#hasPage
      ? `the page sent nothing for ${s(silentMs)}`
      : `the browser made no progress for ${s(silentMs)} (${s(now - this.#startedAt)} after ` +
        `its start, no hello yet: no page file asked for${
          cpu === null ? "" : `, its CPU time still ${s(cpu)}`
        })`;
    this.#stuckRestarts++;
    // A renderer that hangs before its page loads twice in a row (seen with a GPU under
    // Xvfb) may do better with software GL: tried, and said as what it is.
    const isTryingSoftware = !this.#hasPage && !this.#supervisor.isSoftwareGl &&
      this.#stuckRestarts >= 2;
    if (isTryingSoftware) this.#supervisor.isSoftwareGl = true;
    this.#log(
      "warn",
      `Output: ${what}; starting the browser again${
        isTryingSoftware ? " with software GL" : ""
      }, next bound ${s(this.noProgressBoundMs)} (load average ${
        this.#loadAverage() ?? "unknown"
      })`,
    );
    this.progress();
    this.#supervisor.restart();
  }
}

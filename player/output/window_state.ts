/**
 * The output window's display and full-screen state, set through the browser's DevTools on
 * its pipe (a page may not go full screen without a click; the browser's window may). Each
 * browser opens on the chosen display's rectangle (`appState.outputDisplay`: a name, an index,
 * null the primary; `startRect`, listed before the start), so its first paint is there. The
 * window moves only when it is not on that display (the choice or the display changed): to the
 * display's rectangle, normal state first, then full screen there (without a window manager
 * a full-screen window keeps the rectangle it had). A window already on it is left as it is:
 * each pass through a normal window repainted it, a light page for seconds on a browser whose
 * GPU had failed (`docs/output.md`, "A clean picture"). The displays are
 * listed again every `DISPLAY_POLL_MS`: a projector plugged in later gets the output.
 * Headless has no screen to fill, and leaving full screen there hides the page: the page
 * only shows the state then.
 * @module
 */
import type { Display, OutputDisplays } from "../../protocol/displays.ts";
import type { WindowRect } from "./browser.ts";
import type { DevTools, WindowBounds } from "./devtools.ts";
import { chooseDisplay, type DisplayList, fillsDisplay, listDisplays } from "./displays.ts";
import type { BrowserSupervisor } from "./supervisor.ts";

/**
 * How often the displays are listed again (one `xrandr --listmonitors`, a few ms): a display
 * plugged in gets the output within this, and the cost is one small process every 2 s.
 */
export const DISPLAY_POLL_MS = 2000;

/** Options of `OutputWindow`. */
export interface OutputWindowOptions {
  url: string;
  mode: "window" | "fullscreen" | "headless";
  log: (message: string) => void;
  /** The display the show asks for now, read when a browser starts (`startRect`). */
  asked?: () => string | null | undefined;
  /** How the displays are listed (tests); default: `listDisplays`. */
  lister?: DisplayLister;
}

/** Lists the displays, waited for once at the start, and then in the background. */
export interface DisplayLister {
  list(): Promise<DisplayList>;
}

/** The window of the supervised browser. */
export class OutputWindow {
  readonly #supervisor: BrowserSupervisor;
  readonly #url: string;
  readonly #mode: "window" | "fullscreen" | "headless";
  readonly #log: (message: string) => void;
  readonly #asked: () => string | null | undefined;
  readonly #lister: DisplayLister;
  /** The show's full-screen flag last followed; null: none yet for this browser. */
  #wanted: boolean | null = null;
  /** Whether the window is to be full screen (kiosk's first page is, whatever the flag). */
  #isFull = false;
  /** The display asked for (`appState.outputDisplay`); null the primary. */
  #choice: string | null = null;
  #displays: DisplayList = { displays: [], source: "none", reason: "not listed yet" };
  /** The display the window was put on, for this browser; null: none yet. */
  #current: Display | null = null;
  #change: Promise<void> = Promise.resolve();
  #poll: ReturnType<typeof setInterval> | undefined;
  /** The first listing: the first browser starts after it (`listed`). */
  readonly #listed: Promise<void>;

  constructor(supervisor: BrowserSupervisor, options: OutputWindowOptions) {
    this.#supervisor = supervisor;
    this.#url = options.url;
    this.#mode = options.mode;
    this.#log = options.log;
    this.#asked = options.asked ?? (() => undefined);
    this.#lister = options.lister ?? { list: listDisplays };
    this.#listed = Promise.resolve();
    if (this.#mode !== "headless") {
      // Listed before the first browser starts: it opens on its display (`startRect`).
      this.#listed = this.#refresh();
      this.#poll = setInterval(() => this.#refresh(), DISPLAY_POLL_MS);
    }
  }

  /**
   * Settles once the displays were first listed (or could not be: the list says why, within
   * `XRANDR_TIMEOUT_MS`): the first browser starts then, on its display (`startRect`).
   */
  listed(): Promise<void> {
    return this.#listed;
  }

  /**
   * The show's full-screen flag, and its display when given (`choose`): the window follows
   * each change. A new browser starts as
   * the mode says (a window, or kiosk for `fullscreen`); a window goes full screen at once
   * when the flag is set (a window of kiosk opened again too), kiosk stays full screen until
   * the flag changes.
   */
  follow(isFullScreen: boolean, display?: string | null): void {
    if (display !== undefined) this.choose(display);
    if (this.#mode === "headless" || isFullScreen === this.#wanted) return;
    const isFirst = this.#wanted === null;
    this.#wanted = isFullScreen;
    // Kiosk starts full screen; its window opened again (`editor_window.ts`) does not: the
    // first flag of a page makes its window full screen in kiosk, whatever the flag says.
    this.#isFull = isFullScreen || (isFirst && this.#mode === "fullscreen");
    this.#place();
  }

  /** The display the show asks for (`appState.outputDisplay`): the window moves there. */
  choose(choice: string | null): void {
    if (this.#mode === "headless" || choice === this.#choice) return;
    this.#choice = choice;
    if (this.#wanted !== null) this.#place();
  }

  /**
   * The rectangle a new browser's window opens on (`--window-position`, `--window-size`):
   * the chosen display's, so that its first paint is there and no move follows (a window
   * moved or resized before its first frame showed a light page for seconds under Xvfb);
   * null headless or with no display listed.
   */
  startRect(): WindowRect | null {
    if (this.#mode === "headless") return null;
    // The new browser's page places its window (`pageLoaded`): the choice alone is taken here.
    const asked = this.#asked();
    if (asked !== undefined) this.#choice = asked;
    const target = this.#target();
    if (!target) return null;
    const { left, top, width, height } = target;
    return { left, top, width, height };
  }

  /** A page loaded, maybe in a new browser: its window is as the mode says. */
  pageLoaded(isFullScreen: boolean | undefined): void {
    this.#wanted = null;
    this.#current = null;
    if (isFullScreen !== undefined) this.follow(isFullScreen);
  }

  /** The displays now (listed again), the one asked for and the one the window is on. */
  async displays(): Promise<OutputDisplays> {
    if (this.#mode !== "headless") await this.#refresh();
    else this.#displays = await this.#lister.list();
    await this.#change;
    return { ...this.#displays, choice: this.#choice, current: this.#current?.index ?? null };
  }

  /** The state of the browser's window (`normal`, `fullscreen`...), through DevTools. */
  async state(): Promise<string> {
    return (await this.bounds()).windowState;
  }

  /** The output window's rectangle and state, through DevTools. */
  async bounds(): Promise<WindowBounds> {
    await this.#change;
    // A browser started again meanwhile (a crash, software GL) answers on its new pipe.
    for (let attempt = 1;; attempt++) {
      const devtools = this.#supervisor.devtools;
      try {
        return (await (await this.#browserDevTools()).windowBounds(this.#url)).bounds;
      } catch (error) {
        if (attempt >= 3 || (devtools !== null && this.#supervisor.devtools === devtools)) {
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
        await this.#change;
      }
    }
  }

  /** Stops listing the displays; the pipe is the supervisor's. */
  close(): void {
    clearInterval(this.#poll);
  }

  /** Lists the displays; a change moves the window when its display's rectangle changed. */
  async #refresh(): Promise<void> {
    const list = await this.#lister.list().catch((error) => ({
      displays: [],
      source: "none" as const,
      reason: `${error.message}`,
    }));
    if (JSON.stringify(list) === JSON.stringify(this.#displays)) return;
    this.#displays = list;
    const target = this.#target();
    if (this.#wanted !== null && target && !isSameRect(target, this.#current)) this.#place();
  }

  /** Puts the window on its display, then in the state asked, one change after another. */
  #place(): void {
    this.#change = this.#change
      .then(() => this.#browserDevTools())
      .then((devtools) => this.#apply(devtools))
      .catch((error) => this.#log(`Output: window: ${error.message}`));
  }

  async #apply(devtools: DevTools): Promise<void> {
    const target = this.#target();
    const isFull = this.#isFull;
    const { windowId, bounds } = await devtools.windowBounds(this.#url);
    let state = bounds.windowState;
    if (target && !fillsDisplay(bounds, target)) {
      // DevTools moves only a normal window; one that leaves full screen comes back where it was.
      if (state !== "normal") await devtools.setWindowBounds(windowId, { windowState: "normal" });
      const { left, top, width, height } = target;
      await devtools.setWindowBounds(windowId, { left, top, width, height });
      state = "normal";
    }
    if (target) this.#current = target;
    if (isFull !== (state === "fullscreen")) {
      await devtools.setWindowBounds(windowId, { windowState: isFull ? "fullscreen" : "normal" });
    }
  }

  /** The display asked for; while it is not connected, the primary (the show stays seen). */
  #target(): Display | null {
    const { displays } = this.#displays;
    return chooseDisplay(displays, this.#choice) ?? chooseDisplay(displays, null);
  }

  #browserDevTools(): Promise<DevTools> {
    const devtools = this.#supervisor.devtools;
    if (!devtools) return Promise.reject(new Error("the browser is not running"));
    return Promise.resolve(devtools);
  }
}

/** Whether two rectangles are the same (null is none). */
function isSameRect(
  a: Pick<Display, "left" | "top" | "width" | "height">,
  b: Pick<Display, "left" | "top" | "width" | "height"> | null,
): boolean {
  return b !== null && a.left === b.left && a.top === b.top && a.width === b.width &&
    a.height === b.height;
}

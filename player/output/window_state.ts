/**
 * The output window's full-screen state, set through the browser's DevTools on
 * its pipe (a page may not go full screen without a click; the browser's window may).
 * Headless has no screen to fill, and leaving full screen there hides the
 * page: the page only shows the state then.
 * @module
 */
import type { DevTools } from "./devtools.ts";
import type { BrowserSupervisor } from "./supervisor.ts";

/** The window of the supervised browser. */
export class OutputWindow {
  readonly #supervisor: BrowserSupervisor;
  readonly #url: string;
  readonly #mode: "window" | "fullscreen" | "headless";
  readonly #log: (message: string) => void;
  /** The show's full-screen flag last followed; null: none yet for this browser. */
  #wanted: boolean | null = null;
  #change: Promise<void> = Promise.resolve();

  constructor(
    supervisor: BrowserSupervisor,
    options: {
      url: string;
      mode: "window" | "fullscreen" | "headless";
      log: (message: string) => void;
    },
  ) {
    this.#supervisor = supervisor;
    this.#url = options.url;
    this.#mode = options.mode;
    this.#log = options.log;
  }

  /**
   * The show's full-screen flag: the window follows each change. A new browser starts as
   * the mode says (a window, or kiosk for `fullscreen`); a window goes full screen at once
   * when the flag is set (a window of kiosk opened again too), kiosk stays full screen until
   * the flag changes.
   */
  follow(isFullScreen: boolean): void {
    if (this.#mode === "headless" || isFullScreen === this.#wanted) return;
    const isFirst = this.#wanted === null;
    this.#wanted = isFullScreen;
    if (isFirst && !isFullScreen && this.#mode === "window") return;
    // Kiosk starts full screen; its window opened again (`editor_window.ts`) does not: the
    // first flag of a page makes its window full screen in kiosk, whatever the flag says.
    const isFull = isFullScreen || (isFirst && this.#mode === "fullscreen");
    this.#change = this.#change
      .then(() => this.#browserDevTools())
      .then((devtools) => devtools.setFullScreen(this.#url, isFull))
      .catch((error) => this.#log(`Output: full screen: ${error.message}`));
  }

  /** A page loaded, maybe in a new browser: its window is as the mode says. */
  pageLoaded(isFullScreen: boolean | undefined): void {
    this.#wanted = null;
    if (isFullScreen !== undefined) this.follow(isFullScreen);
  }

  /** The state of the browser's window (`normal`, `fullscreen`...), through DevTools. */
  async state(): Promise<string> {
    await this.#change;
    // A browser started again meanwhile (a crash, software GL) answers on its new pipe.
    for (let attempt = 1;; attempt++) {
      const devtools = this.#supervisor.devtools;
      try {
        return await (await this.#browserDevTools()).windowState(this.#url);
      } catch (error) {
        if (attempt >= 3 || (devtools !== null && this.#supervisor.devtools === devtools)) {
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
        await this.#change;
      }
    }
  }

  /** Nothing to release: the pipe is the supervisor's. */
  close(): void {}

  #browserDevTools(): Promise<DevTools> {
    const devtools = this.#supervisor.devtools;
    if (!devtools) return Promise.reject(new Error("the browser is not running"));
    return Promise.resolve(devtools);
  }
}

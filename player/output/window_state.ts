/**
 * The output window's full-screen state, set through the browser's DevTools
 * (a page may not go full screen without a click; the browser's window may).
 * Headless has no screen to fill, and leaving full screen there hides the
 * page: the page only shows the state then.
 * @module
 */
import { DevTools } from "./devtools.ts";
import type { BrowserSupervisor } from "./supervisor.ts";

/** The window of the supervised browser. */
export class OutputWindow {
  readonly #supervisor: BrowserSupervisor;
  readonly #url: string;
  readonly #mode: "window" | "fullscreen" | "headless";
  readonly #log: (message: string) => void;
  /** DevTools of the browser running now. */
  #devtools: { profile: string; client: Promise<DevTools> } | null = null;
  /** The state last set (or the one a new browser starts in). */
  #isFullScreen: boolean;
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
    this.#isFullScreen = options.mode === "fullscreen";
  }

  /** The show wants full screen or not: the window follows (never in headless). */
  follow(isFullScreen: boolean): void {
    if (this.#mode === "headless" || isFullScreen === this.#isFullScreen) return;
    this.#isFullScreen = isFullScreen;
    this.#change = this.#change
      .then(() => this.#browserDevTools())
      .then((devtools) => devtools.setFullScreen(this.#url, isFullScreen))
      .catch((error) => this.#log(`Output: full screen: ${error.message}`));
  }

  /** A page loaded, maybe in a new browser: its window starts as the mode says. */
  pageLoaded(isFullScreen: boolean | undefined): void {
    this.#isFullScreen = this.#mode === "fullscreen";
    if (isFullScreen !== undefined) this.follow(isFullScreen);
  }

  /** The state of the browser's window (`normal`, `fullscreen`...), through DevTools. */
  async state(): Promise<string> {
    await this.#change;
    return (await this.#browserDevTools()).windowState(this.#url);
  }

  close(): void {
    this.#devtools?.client.then((c) => c.close(), () => {});
    this.#devtools = null;
  }

  #browserDevTools(): Promise<DevTools> {
    const profile = this.#supervisor.profileDir;
    if (!profile) return Promise.reject(new Error("the browser is not running"));
    if (this.#devtools?.profile !== profile) {
      this.close();
      this.#devtools = { profile, client: DevTools.connect(profile) };
    }
    return this.#devtools.client;
  }
}

/**
 * The editor window's place in the output's browser: a second target (a new
 * window; a page of its own in headless) opened through DevTools while the
 * show's state says the editor is open, closed when it says so no more. Its
 * end is watched: the user closing it, or the browser exiting, is told once
 * (`closed`), so that the state follows.
 * @module
 */
import { DevTools } from "./devtools.ts";
import type { BrowserSupervisor } from "./supervisor.ts";

/** How long an open waits for a browser being started (a relaunch) to be reachable. */
const BROWSER_WAIT_MS = 10_000;

/** The editor window of the supervised browser. */
export class EditorWindow {
  readonly #supervisor: BrowserSupervisor;
  readonly #url: string;
  readonly #closed: () => void;
  readonly #log: (message: string) => void;
  #devtools: { profile: string; client: DevTools } | null = null;
  #targetId: string | null = null;
  /** Whether the show's state asks for the window. */
  #isWanted = false;
  #work: Promise<void> = Promise.resolve();

  constructor(
    supervisor: BrowserSupervisor,
    options: { url: string; closed: () => void; log: (message: string) => void },
  ) {
    this.#supervisor = supervisor;
    this.#url = options.url;
    this.#closed = options.closed;
    this.#log = options.log;
  }

  /** The editor page's address. */
  get url(): string {
    return this.#url;
  }

  /** The state's editor is open (`isOpen`) or not: the window follows. */
  follow(isOpen: boolean): void {
    if (isOpen === this.#isWanted) return;
    this.#isWanted = isOpen;
    this.#work = this.#work
      .then(() => isOpen ? this.#open() : this.#close())
      .catch((error) => {
        this.#log(`Output: the editor window: ${error.message}`);
        // Not shown: the state says so (shown false) until the editor is opened again.
        if (isOpen) this.#isWanted = false;
      });
  }

  /** Waits for the window's last change (tests). */
  settled(): Promise<void> {
    return this.#work;
  }

  /** Forgets the browser's DevTools (the output closes; the browser goes with it). */
  close(): void {
    this.#isWanted = false;
    this.#targetId = null;
    this.#devtools?.client.close();
    this.#devtools = null;
  }

  async #open(): Promise<void> {
    const devtools = await this.#connect();
    if (this.#targetId !== null) {
      await devtools.send("Target.activateTarget", { targetId: this.#targetId });
      return;
    }
    const { targetId } = await devtools.send<{ targetId: string }>("Target.createTarget", {
      url: this.#url,
      newWindow: true,
    });
    this.#targetId = targetId;
  }

  async #close(): Promise<void> {
    const targetId = this.#targetId;
    if (targetId === null || !this.#devtools) return;
    this.#targetId = null; // asked for: its end is not the user's
    await this.#devtools.client.send("Target.closeTarget", { targetId });
  }

  /** The window went away without being asked: the state is told once. */
  #gone(): void {
    this.#targetId = null;
    this.#isWanted = false;
    this.#closed();
  }

  /** DevTools of the browser running now, watching the targets' ends. */
  async #connect(): Promise<DevTools> {
    const end = performance.now() + BROWSER_WAIT_MS;
    let profile = this.#supervisor.profileDir;
    while (!profile && performance.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      profile = this.#supervisor.profileDir;
    }
    if (!profile) throw new Error("the browser is not running");
    if (this.#devtools?.profile === profile) return this.#devtools.client;
    this.#devtools?.client.close();
    this.#devtools = null;
    const client = await DevTools.connect(profile, BROWSER_WAIT_MS);
    const devtools = { profile, client };
    this.#devtools = devtools;
    client.on("Target.targetDestroyed", (params) => {
      if (params.targetId === this.#targetId) this.#gone();
    });
    client.onClose = () => {
      if (this.#devtools !== devtools) return;
      this.#devtools = null;
      if (this.#targetId !== null) this.#gone(); // the browser exited: its windows with it
    };
    await client.send("Target.setDiscoverTargets", { discover: true });
    return client;
  }
}

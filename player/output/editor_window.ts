/**
 * The editor window's place in the output's browser: a second target (a new
 * window; a page of its own in headless) opened through DevTools when the
 * show's state opens the editor (each `OPEN_EDITOR` brings it to the front,
 * or opens it again), closed when the state closes it. The target is known
 * by its address from the browser's target events, not only by the answer
 * to its creation (which a loaded machine may give late). Its end is
 * watched: the user closing it, or the browser exiting, is told once
 * (`closed`), so that the state follows.
 * @module
 */
import { DevTools } from "./devtools.ts";
import type { BrowserSupervisor } from "./supervisor.ts";

/** How long an open waits for a browser being started (a relaunch) to be reachable. */
const BROWSER_WAIT_MS = 10_000;
/** How long a new window may take to be made (a loaded machine, software GL). */
const CREATE_WAIT_MS = 15_000;

/** A target as DevTools describes it. */
interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

/** The editor window of the supervised browser. */
export class EditorWindow {
  readonly #supervisor: BrowserSupervisor;
  readonly #url: string;
  readonly #closed: () => void;
  readonly #log: (message: string) => void;
  #devtools: { profile: string; client: DevTools } | null = null;
  #targetId: string | null = null;
  /** The `openedAt` of the editor state the window follows; null: no window wanted. */
  #wanted: string | null = null;
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

  /**
   * The state's editor, opened at `openedAt` (null: closed): the window follows. A new
   * `openedAt` (an `OPEN_EDITOR`) opens the window, or brings it to the front.
   */
  follow(openedAt: string | null): void {
    if (openedAt === this.#wanted) return;
    this.#wanted = openedAt;
    const isOpen = openedAt !== null;
    this.#work = this.#work
      .then(() => isOpen ? this.#open() : this.#close())
      // Not shown: the state says so (shown false) until the editor is opened again.
      .catch((error) => this.#log(`Output: the editor window: ${error.message}`));
  }

  /** Waits for the window's last change (tests). */
  settled(): Promise<void> {
    return this.#work;
  }

  /** Forgets the browser's DevTools (the output closes; the browser goes with it). */
  close(): void {
    this.#wanted = null;
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
    const { targetId } = await devtools.send<{ targetId: string }>(
      "Target.createTarget",
      { url: this.#url, newWindow: true, width: 1200, height: 800 },
      CREATE_WAIT_MS,
    );
    this.#targetId = targetId;
  }

  async #close(): Promise<void> {
    if (!this.#devtools) return;
    const devtools = this.#devtools.client;
    this.#targetId = null; // asked for: its end is not the user's
    const { targetInfos } = await devtools.send<{ targetInfos: TargetInfo[] }>(
      "Target.getTargets",
    );
    for (const target of targetInfos.filter((t) => this.#isEditor(t))) {
      await devtools.send("Target.closeTarget", { targetId: target.targetId });
    }
  }

  /** The window went away without being asked: the state is told once. */
  #gone(): void {
    this.#targetId = null;
    this.#wanted = null;
    this.#closed();
  }

  #isEditor(target: TargetInfo): boolean {
    return target.type === "page" && target.url.startsWith(this.#url);
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
    // The editor's target as the browser names it: known at once, even when the answer to
    // its creation is late; a reload keeps it.
    const seen = (params: Record<string, unknown>) => {
      const info = params.targetInfo as TargetInfo;
      if (this.#wanted !== null && this.#isEditor(info)) this.#targetId = info.targetId;
    };
    client.on("Target.targetCreated", seen);
    client.on("Target.targetInfoChanged", seen);
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

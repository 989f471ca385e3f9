/**
 * The editor window's place in the output's browser: a second target (a new
 * window; a page of its own in headless) opened through DevTools (over the
 * browser's pipe, `Target.createTarget`; it gets the pages' start script
 * like every page, `page_setup.ts`) when the
 * show's state opens the editor (each `OPEN_EDITOR` brings it to the front,
 * or opens it again), closed when the state closes it. The target is known
 * by its address from the browser's target events, not only by the answer
 * to its creation (which a loaded machine may give late). Its end is
 * watched: the user closing it, or the browser exiting, is told once
 * (`closed`), so that the state follows. A window the player asked to close
 * (the editor closed, or its page crashed) is no longer the editor's: its
 * last events, which a loaded browser may send after the editor was opened
 * again, neither make it the new editor's window nor, at its end, close the
 * new editor (issue 42).
 * @module
 */
import { type DevTools, pageAt } from "./devtools.ts";
import type { BrowserSupervisor } from "./supervisor.ts";

/** What the editor window needs of the browser's supervisor (tests give a scripted one). */
export type EditorBrowser = Pick<
  BrowserSupervisor,
  "mode" | "pid" | "whenRunning" | "openPage" | "restart"
>;

/** How long an open waits for a browser being started (a relaunch) to be reachable. */
const BROWSER_WAIT_MS = 10_000;
/**
 * How long after the output's window went away it is opened again, if the browser still runs
 * then: a user quitting the whole browser closes the output's window first.
 */
const REOPEN_DELAY_MS = 300;
/** The editor window's size at first. */
const EDITOR_SIZE = { width: 1200, height: 800 };

/** A target as DevTools describes it. */
interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

/** The editor window of the supervised browser. */
export class EditorWindow {
  readonly #supervisor: EditorBrowser;
  readonly #url: string;
  readonly #outputUrl: string;
  readonly #closed: () => void;
  readonly #log: (message: string) => void;
  #devtools: { client: DevTools; off: (() => void)[] } | null = null;
  #targetId: string | null = null;
  /** Editor windows asked to close and not yet gone: their events are not the editor's. */
  readonly #closing = new Set<string>();
  /** How many times the window went away unasked (`#gone`): an open that saw one keeps nothing. */
  #goneCount = 0;
  /** The output page's target in the browser running now. */
  #outputId: string | null = null;
  /** The `openedAt` of the editor state the window follows; null: no window wanted. */
  #wanted: string | null = null;
  #work: Promise<void> = Promise.resolve();
  /** The output's window opened again soon (it went away). */
  #reopenTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    supervisor: EditorBrowser,
    options: {
      url: string;
      /** The output page's address: its window closed while the editor is open opens again. */
      outputUrl: string;
      closed: () => void;
      log: (message: string) => void;
    },
  ) {
    this.#supervisor = supervisor;
    this.#url = options.url;
    this.#outputUrl = options.outputUrl;
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
    clearTimeout(this.#reopenTimer);
    this.#forget();
  }

  /** Stops listening to the browser's events. */
  #forget(): void {
    for (const off of this.#devtools?.off ?? []) off();
    this.#devtools = null;
  }

  async #open(): Promise<void> {
    if (this.#wanted === null) return; // closed while this open waited its turn
    const devtools = await this.#connect();
    if (this.#targetId !== null) {
      await devtools.send("Target.activateTarget", { targetId: this.#targetId });
      return;
    }
    // A window of its own (in kiosk, made normal beside the output's): DevTools opens it with
    // a tab strip, where an app window would need a second browser started on the profile.
    const goneCount = this.#goneCount;
    const targetId = await this.#supervisor.openPage(this.#url, {
      newWindow: true,
      ...EDITOR_SIZE,
    });
    // Gone while it opened (closed by the user, crashed, the browser exited): the state says
    // closed, and the next open opens a window rather than bring this one's id to the front.
    if (this.#goneCount !== goneCount) return;
    this.#targetId = targetId; // the browser's answer: this window, whatever other page was seen
    if (this.#supervisor.mode !== "headless") await beside(devtools, targetId);
  }

  /**
   * The output's window went away while the editor keeps the browser running (with the last
   * window the browser exits, and the supervisor starts it again): it is opened again a moment
   * later, in turn with the editor's changes, if the browser still runs then (the user quitting
   * it closes the output's window first) - the same DevTools, the same process, the editor's
   * window still there and the output's not back.
   */
  #outputGone(devtools: DevTools): void {
    const pid = this.#supervisor.pid;
    const isStillWanted = () =>
      this.#devtools?.client === devtools && this.#supervisor.pid === pid &&
      this.#targetId !== null && this.#outputId === null;
    clearTimeout(this.#reopenTimer);
    this.#reopenTimer = setTimeout(() => {
      this.#work = this.#work
        .then(() => isStillWanted() ? this.#reopenOutput(isStillWanted) : undefined)
        .catch((error) => this.#log(`Output: opening its window again: ${error.message}`));
    }, REOPEN_DELAY_MS);
  }

  /** Opens the output's window again; a window that did not open is tried once more. */
  async #reopenOutput(isStillWanted: () => boolean): Promise<void> {
    this.#log("Output: its window was closed; opening it again");
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.#supervisor.openPage(this.#outputUrl, { newWindow: true });
        return;
      } catch {
        // A browser exiting meanwhile (or started since) is not touched.
        if (!isStillWanted()) return;
      }
    }
    // The show is not left dark.
    this.#supervisor.restart();
  }

  async #close(): Promise<void> {
    if (!this.#devtools) return;
    const devtools = this.#devtools.client;
    this.#targetId = null; // asked for: its end is not the user's
    const { targetInfos } = await devtools.send<{ targetInfos: TargetInfo[] }>(
      "Target.getTargets",
    );
    for (const target of targetInfos.filter((t) => this.#isEditor(t))) {
      await this.#closeTarget(devtools, target.targetId);
    }
  }

  /**
   * Closes the editor window `targetId`, no longer the editor's from now on: an `OPEN_EDITOR`
   * that comes before the browser's last events of it opens a window of its own.
   */
  async #closeTarget(devtools: DevTools, targetId: string): Promise<void> {
    // Kept until its end (or the browser's): a close not answered in time may still happen.
    this.#closing.add(targetId);
    if (this.#targetId === targetId) this.#targetId = null;
    await devtools.send("Target.closeTarget", { targetId });
  }

  /** The window went away without being asked: the state is told once. */
  #gone(): void {
    this.#targetId = null;
    this.#wanted = null;
    this.#goneCount++;
    this.#closed();
  }

  #isEditor(target: TargetInfo): boolean {
    return target.type === "page" && target.url.startsWith(this.#url);
  }

  /** DevTools of the browser running now, watching the targets' ends. */
  async #connect(): Promise<DevTools> {
    const client = await this.#supervisor.whenRunning(BROWSER_WAIT_MS);
    if (this.#devtools?.client === client) return client;
    this.#forget();
    this.#closing.clear(); // the windows of a browser that is gone
    const devtools: { client: DevTools; off: (() => void)[] } = { client, off: [] };
    this.#devtools = devtools;
    // The editor's target as the browser names it: known at once, even when the answer to
    // its creation is late; a reload keeps it. A window being closed is not taken, nor another
    // page at the editor's address while the editor has its window (a tab opened by hand).
    const seen = (params: Record<string, unknown>) => {
      const info = params.targetInfo as TargetInfo;
      if (
        this.#wanted !== null && this.#targetId === null && this.#isEditor(info) &&
        !this.#closing.has(info.targetId)
      ) {
        this.#targetId = info.targetId;
      }
      if (info.type === "page" && pageAt([info], this.#outputUrl)) this.#outputId = info.targetId;
    };
    devtools.off.push(
      client.on("Target.targetCreated", seen),
      client.on("Target.targetInfoChanged", seen),
      client.on("Target.targetDestroyed", (params) => {
        this.#closing.delete(params.targetId as string);
        if (params.targetId === this.#targetId) this.#gone();
        if (params.targetId !== this.#outputId) return;
        this.#outputId = null;
        if (this.#targetId !== null) this.#outputGone(client);
      }),
      // The editor's page crashed: its window (which would show a crashed tab) is closed.
      client.on("Target.targetCrashed", (params) => {
        const targetId = params.targetId as string;
        if (targetId !== this.#targetId) return;
        this.#gone();
        this.#closeTarget(client, targetId).catch(() => {});
      }),
    );
    client.onClose = () => {
      if (this.#devtools !== devtools) return;
      this.#devtools = null;
      // The browser exited, its windows with it; one being opened too.
      if (this.#wanted !== null) this.#gone();
    };
    await client.send("Target.setDiscoverTargets", { discover: true });
    return client;
  }
}

/**
 * The window of `targetId` as a normal window, not full screen over the output (a browser in
 * kiosk makes each window full screen).
 */
async function beside(devtools: DevTools, targetId: string): Promise<void> {
  const { windowId, bounds } = await devtools.send<
    { windowId: number; bounds: { windowState: string } }
  >("Browser.getWindowForTarget", { targetId });
  if (bounds.windowState === "normal") return;
  await devtools.send("Browser.setWindowBounds", { windowId, bounds: { windowState: "normal" } });
  await devtools.send("Browser.setWindowBounds", { windowId, bounds: EDITOR_SIZE });
}

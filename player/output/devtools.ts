/**
 * The DevTools-protocol connection of the player to its own browser, over
 * the pipe the browser was started with (`--remote-debugging-pipe`: the
 * player writes on the browser's fd 3 and reads its fd 4, one JSON message
 * after another, each ended by a NUL byte, as puppeteer does). No port
 * exists: no other program of the machine can reach the browser this way.
 * The player sets the window's state (a page may not go full screen without a
 * click, the browser's window may), opens and closes the editor's window, and
 * gives each page its start script (`page_setup.ts`).
 * @module
 */

/** Ids of the requests of `DevTools.channel` connections start here. */
const CHANNEL_IDS = 1_000_000_000;

/** A connection beside the player's over the same pipe (puppeteer's `ConnectionTransport`). */
export interface DevToolsChannel {
  send(message: string): void;
  close(): void;
  onmessage?: (message: string) => void;
  onclose?: () => void;
}

/** A browser window's rectangle on the desktop (pixels) and its state (`normal`, `fullscreen`...). */
export interface WindowBounds {
  left: number;
  top: number;
  width: number;
  height: number;
  windowState: string;
}

/** Where an event came from: the browser (no session) or one attached target's session. */
export type EventHandler = (params: Record<string, unknown>, sessionId: string | null) => void;

/** A connection to the browser's DevTools endpoint, over its pipe. */
export class DevTools {
  readonly #write: (message: string) => void;
  #nextId = 1;
  #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  #events = new Map<string, Set<EventHandler>>();
  /** Bytes of a message not yet ended by its NUL. */
  #partial = "";
  #decoder = new TextDecoder();
  #isClosed = false;
  /** Connections beside the player's own (`channel`): their ids, shifted, to the channel. */
  #channels = new Set<DevToolsChannel>();
  /** Told once when the connection ends (the browser exited, or `close`). */
  onClose: () => void = () => {};

  /** A connection that writes each message (NUL-ended) with `write`; `receive` feeds it. */
  constructor(write: (message: string) => void) {
    this.#write = write;
  }

  /** Whether the pipe has ended. */
  get isClosed(): boolean {
    return this.#isClosed;
  }

  /** Bytes read from the browser's pipe: each NUL-ended message is handled. */
  receive(bytes: Uint8Array): void {
    const messages = (this.#partial + this.#decoder.decode(bytes, { stream: true })).split("\0");
    this.#partial = messages.pop() ?? "";
    for (const text of messages) this.#handle(text);
  }

  /**
   * Calls `handler` with the params of each event `method` (of the browser, or of a session
   * when the handler is given one); returns what removes it.
   */
  on(method: string, handler: EventHandler): () => void {
    const handlers = this.#events.get(method) ?? new Set();
    handlers.add(handler);
    this.#events.set(method, handlers);
    return () => handlers.delete(handler);
  }

  /**
   * Sends one command (to the browser, or to the target attached as `sessionId`); resolves with
   * its result, rejects when none comes within `timeoutMs` or the pipe ends.
   */
  send<T>(
    method: string,
    params: Record<string, unknown> = {},
    options: { timeoutMs?: number; sessionId?: string } = {},
  ): Promise<T> {
    if (this.#isClosed) return Promise.reject(new Error("The browser closed"));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      // Every request ends: a browser on its way out may never answer.
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`The browser did not answer ${method}`));
      }, options.timeoutMs ?? 5000);
      this.#pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      const session = options.sessionId ? { sessionId: options.sessionId } : {};
      try {
        this.#write(JSON.stringify({ id, method, params, ...session }) + "\0");
      } catch (error) {
        this.#pending.get(id)?.reject(new Error(`The browser's pipe is closed: ${error}`));
        this.#pending.delete(id);
      }
    });
  }

  /** The state of the window showing `url` (`normal`, `fullscreen`...). */
  async windowState(url: string): Promise<string> {
    return (await this.windowBounds(url)).bounds.windowState;
  }

  /** The window showing `url`: its id, its rectangle on the desktop and its state. */
  async windowBounds(url: string): Promise<{ windowId: number; bounds: WindowBounds }> {
    const windowId = await this.#windowOf(url);
    const { bounds } = await this.send<{ bounds: WindowBounds }>("Browser.getWindowBounds", {
      windowId,
    });
    return { windowId, bounds };
  }

  /**
   * Sets a window's rectangle or its state: one or the other, as DevTools takes them (a
   * full-screen window must be made `normal` before it can move).
   */
  async setWindowBounds(
    windowId: number,
    bounds: Omit<WindowBounds, "windowState"> | Pick<WindowBounds, "windowState">,
  ): Promise<void> {
    await this.send("Browser.setWindowBounds", { windowId, bounds });
  }

  /**
   * A second connection over the same pipe, shaped as puppeteer's `ConnectionTransport`
   * (tests and benches drive the browser's pages with `puppeteer.connect({ transport })`):
   * its requests get ids of their own, its answers come back to it alone, events to both.
   */
  channel(): DevToolsChannel {
    const channel: DevToolsChannel = {
      send: (text) => {
        const message = JSON.parse(text);
        this.#write(JSON.stringify({ ...message, id: message.id + CHANNEL_IDS }) + "\0");
      },
      close: () => {
        this.#channels.delete(channel);
        channel.onclose?.();
      },
    };
    this.#channels.add(channel);
    return channel;
  }

  /** The pipe ended (the browser exited): every pending request fails, `onClose` is told. */
  closed(): void {
    if (this.#isClosed) return;
    this.#isClosed = true;
    for (const p of this.#pending.values()) p.reject(new Error("The browser closed"));
    this.#pending.clear();
    for (const channel of this.#channels) channel.close();
    this.onClose();
  }

  #handle(text: string): void {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return; // not JSON: not the protocol's
    }
    if (typeof message.id === "number" && message.id >= CHANNEL_IDS) {
      const answer = JSON.stringify({ ...message, id: message.id - CHANNEL_IDS });
      for (const channel of this.#channels) channel.onmessage?.(answer);
      return;
    }
    if (typeof message.method === "string") {
      for (const channel of this.#channels) channel.onmessage?.(text);
    }
    if (typeof message.method === "string") {
      for (const handler of this.#events.get(message.method) ?? []) {
        handler(message.params ?? {}, message.sessionId ?? null);
      }
      return;
    }
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (message.error) pending.reject(new Error(message.error.message));
    else pending.resolve(message.result);
  }

  async #targetOf(url: string): Promise<string> {
    const { targetInfos } = await this.send<{ targetInfos: { targetId: string; url: string }[] }>(
      "Target.getTargets",
    );
    const page = pageAt(targetInfos, url);
    if (!page) throw new Error("The output page is not open");
    return page.targetId;
  }

  async #windowOf(url: string): Promise<number> {
    const { windowId } = await this.send<{ windowId: number }>("Browser.getWindowForTarget", {
      targetId: await this.#targetOf(url),
    });
    return windowId;
  }
}

/**
 * The target showing the page at `url` itself (a query or fragment aside): not another page
 * under its path, such as the editor's (`<url>editor.html`).
 */
export function pageAt<T extends { url: string }>(targets: readonly T[], url: string): T | null {
  return targets.find((t) =>
    t.url === url || (t.url.startsWith(url) && /^[?#]/.test(t.url.slice(url.length)))
  ) ?? null;
}

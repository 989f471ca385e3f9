/**
 * The few DevTools-protocol calls the player makes to its own browser: the
 * window's state (full screen and back: a page may not go full screen
 * without a click, the browser's window may), and the editor window (a new
 * target opened and closed, its end seen by the target events). The browser listens on a
 * loopback port it picks and names in `DevToolsActivePort` in its profile.
 * @module
 */

/** A connection to the browser's DevTools endpoint. */
export class DevTools {
  #socket: WebSocket;
  #nextId = 1;
  #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  #events = new Map<string, (params: Record<string, unknown>) => void>();
  /** Told once when the connection ends (the browser exited, or `close`). */
  onClose: () => void = () => {};

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data));
      if (typeof message.method === "string") {
        this.#events.get(message.method)?.(message.params ?? {});
        return;
      }
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error) pending.reject(new Error(message.error.message));
      else pending.resolve(message.result);
    };
    socket.onclose = () => {
      for (const p of this.#pending.values()) p.reject(new Error("The browser closed"));
      this.#pending.clear();
      this.onClose();
    };
  }

  /** Calls `handler` with the params of each event `method` (one handler an event). */
  on(method: string, handler: (params: Record<string, unknown>) => void): void {
    this.#events.set(method, handler);
  }

  /** Connects to the browser whose profile is `profileDir`, waiting up to `timeoutMs` for it. */
  static async connect(profileDir: string, timeoutMs = 10_000): Promise<DevTools> {
    const end = performance.now() + timeoutMs;
    const endpoint = await activePort(profileDir, timeoutMs);
    // A browser on its way out (killed, or being replaced with software GL) may refuse the
    // connection or take it and never answer: try again, each try bounded, until the deadline.
    for (;;) {
      const socket = new WebSocket(endpoint);
      const isOpen = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 2000);
        socket.onopen = () => {
          clearTimeout(timer);
          resolve(true);
        };
        socket.onerror = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
      if (isOpen) return new DevTools(socket);
      socket.close();
      if (performance.now() >= end) throw new Error(`Cannot reach the browser at ${endpoint}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Sends one command; resolves with its result, rejects when none comes within `timeoutMs`. */
  send<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 5000): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      // Every request ends: a browser on its way out may never answer.
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`The browser did not answer ${method}`));
      }, timeoutMs);
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
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** The window showing `url`: full screen, or back to normal. */
  async setFullScreen(url: string, isFullScreen: boolean): Promise<void> {
    const windowId = await this.#windowOf(url);
    const windowState = isFullScreen ? "fullscreen" : "normal";
    await this.send("Browser.setWindowBounds", { windowId, bounds: { windowState } });
  }

  /** The state of the window showing `url` (`normal`, `fullscreen`...). */
  async windowState(url: string): Promise<string> {
    const windowId = await this.#windowOf(url);
    const { bounds } = await this.send<{ bounds: { windowState: string } }>(
      "Browser.getWindowBounds",
      { windowId },
    );
    return bounds.windowState;
  }

  close(): void {
    this.#socket.close();
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

/** The browser's DevTools WebSocket address, once it has written it. */
async function activePort(profileDir: string, timeoutMs: number): Promise<string> {
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    try {
      const [port, path] = (await Deno.readTextFile(`${profileDir}/DevToolsActivePort`)).split(
        "\n",
      );
      if (port && path) return `ws://127.0.0.1:${port}${path}`;
    } catch {
      // not written yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("The browser did not open its DevTools port");
}

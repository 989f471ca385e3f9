/**
 * Until the supervisor hands `initScript` to the browser's pages over its pipe (the browser
 * workstream, issue 40), the pages get the socket secret through the DevTools port the browser
 * opens today: when a page of the output's address is refused for want of the secret, each page
 * target under that address is given the script for its next loads
 * (`Page.addScriptToEvaluateOnNewDocument`) and now (`Runtime.evaluate`): the output page
 * reloads a second after a refusal, the editor's tries again. Without a DevTools port (a
 * browser driven over a pipe) it does nothing. Remove this file once `initScript` is honoured.
 * @module
 */

/** Each step's bound, ms (a browser on its way out may never answer). */
const STEP_MS = 5000;

/** Options of `PageSecretBridge`. */
export interface PageSecretBridgeOptions {
  /** The output's address: only page targets under it get the script. */
  url: string;
  /** The running browser's profile (its `DevToolsActivePort`), or null. */
  profileDir(): string | null;
}

/** Hands the secret's script to the browser's pages over its DevTools port, once each. */
export class PageSecretBridge {
  readonly #options: PageSecretBridgeOptions;
  /**
   * The DevTools session of each page target given a script, by `targetId script`: kept open,
   * since a script added to new documents goes with the session that added it.
   */
  readonly #sessions = new Map<string, WebSocket>();
  #running: Promise<void> | null = null;
  #isClosed = false;

  constructor(options: PageSecretBridgeOptions) {
    this.#options = options;
  }

  /** Gives `script` to the pages that do not have it yet (one delivery at a time). */
  deliver(script: string): void {
    if (this.#running || this.#isClosed) return;
    this.#running = this.#deliver(script).catch(() => {}).finally(() => this.#running = null);
  }

  /** No more deliveries. */
  close(): void {
    this.#isClosed = true;
    for (const session of this.#sessions.values()) session.close();
    this.#sessions.clear();
  }

  async #deliver(script: string): Promise<void> {
    const profile = this.#options.profileDir();
    if (!profile) return;
    const [port] = (await Deno.readTextFile(`${profile}/DevToolsActivePort`)).split("\n");
    const response = await fetch(`http://127.0.0.1:${port}/json/list`, {
      signal: AbortSignal.timeout(STEP_MS),
    });
    const targets = await response.json() as {
      id: string;
      type: string;
      url: string;
      webSocketDebuggerUrl?: string;
    }[];
    for (const target of targets) {
      const key = `${target.id} ${script}`;
      if (target.type !== "page" || !target.url.startsWith(this.#options.url)) continue;
      if (!target.webSocketDebuggerUrl || this.#sessions.has(key)) continue;
      const session = await evaluateOnTarget(target.webSocketDebuggerUrl, script);
      if (this.#isClosed) session.close();
      else this.#sessions.set(key, session);
      session.addEventListener("close", () => this.#sessions.delete(key));
    }
  }
}

/**
 * Adds `script` to the target's new documents and runs it in the one it shows now: the
 * session, which must stay open for the script to stay.
 */
function evaluateOnTarget(endpoint: string, script: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(endpoint);
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error("The browser did not answer"));
    }, STEP_MS);
    let answers = 0;
    socket.onopen = () => {
      socket.send(JSON.stringify({ id: 0, method: "Page.enable" }));
      socket.send(JSON.stringify({
        id: 1,
        method: "Page.addScriptToEvaluateOnNewDocument",
        params: { source: script },
      }));
      socket.send(
        JSON.stringify({ id: 2, method: "Runtime.evaluate", params: { expression: script } }),
      );
    };
    socket.onmessage = (event) => {
      if (typeof JSON.parse(String(event.data)).id !== "number" || ++answers < 3) return;
      clearTimeout(timer);
      socket.onmessage = null;
      resolve(socket);
    };
    socket.onerror = () => {
      clearTimeout(timer);
      reject(new Error("The browser's DevTools refused the page's target"));
    };
  });
}

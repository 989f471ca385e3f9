/**
 * Headless Chromium (Debian's `chromium`, or a Chrome or Chromium on PATH) for tests of the web remote, over
 * the DevTools protocol with puppeteer-core, and a proxy that makes the
 * browser a remote device: it listens on 127.0.0.5 at the service's own port
 * numbers and connects on from 127.0.0.2, so the page and its WebSocket reach
 * the service from a non-local address under one host name (`show-pc.test`).
 */
import net from "node:net";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { findPeer } from "../peers.ts";

/**
 * The browser: the first Chromium or Chrome on PATH (`tools/peers.ts`), else
 * where Debian installs Chromium (`apt-get install chromium`). Tests that use
 * it are skipped when it is missing: `Deno.test({ ...needs("chromium"), ... })`.
 */
export const CHROMIUM = findPeer("chromium") ?? "/usr/bin/chromium";

/** The name the browser uses for the show machine (resolved to the proxy). */
export const SHOW_HOST = "show-pc.test";
const PROXY_ADDRESS = "127.0.0.5";

/** A 390x844 phone with touch, as the remote's browser tests hold it. */
export const PHONE = {
  width: 390,
  height: 844,
  deviceScaleFactor: 1,
  isMobile: true,
  hasTouch: true,
};

/** How long a phone's waits may last: a hang guard for a machine kept busy (puppeteer's is 30 s). */
const PAGE_HANG_GUARD_MS = 180_000;

/** A new page of `browser` as a phone (`PHONE`) that prints the errors of its page. */
export async function newPhone(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  // Waits for what will come (a selector, a navigation) end at a hang guard, not puppeteer's 30 s:
  // on a machine kept busy by stress-ng a remote that moved rigs showed it after more than 30 s.
  page.setDefaultTimeout(PAGE_HANG_GUARD_MS);
  await page.setViewport(PHONE);
  page.on("pageerror", (error) => console.error("page error:", error));
  return page;
}

/** A started browser with its own empty profile; `close()` removes it. */
export interface TestBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Launches Chromium headless (with `extraFlags` after its own). The flags keep
 * it from its background connections (the test machine's network is closed)
 * and from HTTPS upgrades. The bench and the screenshot tool use it too.
 */
export async function launchBrowser(extraFlags: readonly string[] = []): Promise<TestBrowser> {
  const profile = await Deno.makeTempDir({ prefix: "cueport-chromium-" });
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Chromium gets only what it needs: the test task grants no access to the whole
    // environment, which puppeteer would otherwise copy.
    env: { HOME: Deno.env.get("HOME") ?? "/tmp" },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable",
      `--host-resolver-rules=MAP ${SHOW_HOST} ${PROXY_ADDRESS}`,
      `--user-data-dir=${profile}`,
      ...extraFlags,
    ],
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}

/** The proxy of one port: its live connections can be cut (a dropped network). */
export class RemoteProxy {
  #server: net.Server;
  #sockets: Set<net.Socket>;

  private constructor(server: net.Server, sockets: Set<net.Socket>) {
    this.#server = server;
    this.#sockets = sockets;
  }

  /** Listens on 127.0.0.5:`port` and forwards to 127.0.0.1:`port` from 127.0.0.2. */
  static async listen(port: number): Promise<RemoteProxy> {
    const sockets = new Set<net.Socket>();
    const server = net.createServer((client) => {
      const upstream = net.connect({ host: "127.0.0.1", port, localAddress: "127.0.0.2" });
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
        s.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, PROXY_ADDRESS, () => resolve());
    });
    return new RemoteProxy(server, sockets);
  }

  /** Cuts every connection through this proxy at once, as a Wi-Fi drop would. */
  drop(): void {
    for (const s of this.#sockets) s.destroy();
  }

  /** How many connections pass through now. */
  get connectionCount(): number {
    return this.#sockets.size / 2;
  }

  /** Stops listening and cuts every connection. */
  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Proxies for the HTTP and WebSocket ports: the page is at `url`. */
export async function remoteProxies(
  ports: { http: number; ws: number },
): Promise<{ url: string; http: RemoteProxy; ws: RemoteProxy; close(): Promise<void> }> {
  const http = await RemoteProxy.listen(ports.http);
  const ws = await RemoteProxy.listen(ports.ws);
  return {
    url: `http://${SHOW_HOST}:${ports.http}/`,
    http,
    ws,
    close: () => Promise.all([http.close(), ws.close()]).then(() => {}),
  };
}

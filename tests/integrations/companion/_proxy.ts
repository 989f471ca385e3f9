/**
 * A TCP proxy for the module's tests: the module reaches the service through it as a device on
 * the network would (listening on 127.0.0.5, connecting from 127.0.0.2). It can be pointed at
 * another port (a service restarted on free ports) and frozen: it stops forwarding without
 * closing anything, as a pulled cable does.
 */
import net from "node:net";

/** The address the module is given; the service sees its connections come from 127.0.0.2. */
export const PROXY_HOST = "127.0.0.5";

/** One forwarded port. */
export class FreezableProxy {
  /** Chunks forwarded from the module to the service (pings included). */
  chunksUp = 0;
  #target: number;
  readonly #from: string;
  #frozen = false;
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();

  private constructor(target: number, from: string) {
    this.#target = target;
    this.#from = from;
    this.#server = net.createServer((client) => this.#accept(client));
  }

  /**
   * Listens on a free port of 127.0.0.5 and forwards to 127.0.0.1:`target` from `from`
   * (127.0.0.2: a device on the network; 127.0.0.1: a client on the show machine).
   */
  static async listen(target: number, from = "127.0.0.2"): Promise<FreezableProxy> {
    const proxy = new FreezableProxy(target, from);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once("error", reject);
      proxy.#server.listen(0, PROXY_HOST, () => resolve());
    });
    return proxy;
  }

  /** The port the module connects to. */
  get port(): number {
    return (this.#server.address() as net.AddressInfo).port;
  }

  /** Forwards new connections to 127.0.0.1:`target` from now on. */
  retarget(target: number): void {
    this.#target = target;
  }

  /** Stops forwarding, closes nothing: open connections and new ones hang. */
  freeze(): void {
    this.#frozen = true;
  }

  /** Forwards again; the connections that hung while frozen are ended. */
  thaw(): void {
    this.#frozen = false;
    for (const socket of this.#sockets) socket.destroy();
  }

  /** Closes the listener and every connection. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: net.Socket): void {
    this.#track(client);
    if (this.#frozen) return;
    const upstream = net.connect({
      host: "127.0.0.1",
      port: this.#target,
      localAddress: this.#from,
    });
    this.#track(upstream);
    const end = () => (client.destroy(), upstream.destroy());
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.on("data", (chunk) => {
      if (this.#frozen) return;
      this.chunksUp++;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (!this.#frozen) client.write(chunk);
    });
  }

  #track(socket: net.Socket): void {
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));
  }
}

/** Proxies for a service's HTTP and WebSocket ports. */
export async function proxiesFor(
  ports: { http: number; ws: number },
  from = "127.0.0.2",
): Promise<{ http: FreezableProxy; ws: FreezableProxy; close(): Promise<void> }> {
  const http = await FreezableProxy.listen(ports.http, from);
  const ws = await FreezableProxy.listen(ports.ws, from);
  return { http, ws, close: () => Promise.all([http.close(), ws.close()]).then(() => {}) };
}

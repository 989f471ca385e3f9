/**
 * HTTP/1.1 over a raw TCP socket (`node:net`): any bytes, from any loopback
 * source address (127.0.0.2 is a remote client to the service), one fresh
 * connection each time, and the answer read as it comes. `fetch` can do
 * none of these (it pools connections, validates what it sends).
 * @module
 */
import net from "node:net";
import { Waiters } from "./_waiters.ts";

const latin1 = new TextDecoder("latin1");
const KEPT_BYTES = 64 * 1024;

/** What came back on a connection. */
export interface Answer {
  /** The status of the first response, null if none arrived. */
  status: number | null;
  /** The `error.code` of its JSON body, if any. */
  code: string | null;
  /** Whether the server closed (or reset) the connection. */
  isClosed: boolean;
  /** The first 64 KiB received, one char per byte. */
  text: string;
}

/** Where to connect. */
export interface ConnectOptions {
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Source address: 127.0.0.1 or ::1 is local; any other 127.x.y.z is a remote client. */
  localAddress?: string;
  /** Connect timeout, ms (default 5000). */
  timeoutMs?: number;
}

/** One TCP connection with its answer parsed as it arrives. */
export class RawConnection {
  #socket: net.Socket;
  #text = "";
  #received = 0;
  #isClosed = false;
  #error: string | null = null;
  #waiters = new Waiters();

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on("data", (chunk: Uint8Array) => {
      this.#received += chunk.length;
      if (this.#text.length < KEPT_BYTES) this.#text += latin1.decode(chunk);
      this.#wake();
    });
    const closed = () => {
      this.#isClosed = true;
      this.#wake();
    };
    socket.on("close", closed);
    socket.on("end", closed);
    socket.on("error", (error: Error) => {
      this.#error = error.message;
      closed();
    });
  }

  /** Connects; rejects on a refusal, an error or the timeout. */
  static connect(options: ConnectOptions): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({
        host: options.host ?? "127.0.0.1",
        port: options.port,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error("connect timeout"));
      }, options.timeoutMs ?? 5000);
      socket.once("error", (error: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      });
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.removeAllListeners("error");
        socket.setNoDelay(true);
        resolve(new RawConnection(socket));
      });
    });
  }

  /** Whether the server closed or reset the connection. */
  get isClosed(): boolean {
    return this.#isClosed;
  }

  /** Bytes received so far. */
  get received(): number {
    return this.#received;
  }

  /** The socket error, if any. */
  get error(): string | null {
    return this.#error;
  }

  /** The answer so far. */
  answer(): Answer {
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(this.#text);
    const code = /"code"\s*:\s*"([A-Z_]+)"/.exec(this.#text);
    return {
      status: m ? Number(m[1]) : null,
      code: code ? code[1]! : null,
      isClosed: this.#isClosed,
      text: this.#text,
    };
  }

  /** Whether a whole response has arrived (by Content-Length, chunked end, or close). */
  get isAnswered(): boolean {
    const end = this.#text.indexOf("\r\n\r\n");
    if (end < 0) return false;
    const head = this.#text.slice(0, end).toLowerCase();
    const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
    if (length) return this.#text.length - end - 4 >= Number(length[1]);
    if (/\r\ntransfer-encoding:\s*chunked/.test(head)) return this.#text.endsWith("0\r\n\r\n");
    return /^http\/1\.[01] (1\d\d|204|304)/.test(head) || this.#isClosed;
  }

  /**
   * Writes bytes and waits until the socket takes them (backpressure);
   * false once the connection is closed.
   */
  write(data: Uint8Array | string): Promise<boolean> {
    if (this.#isClosed || this.#socket.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const flushed = this.#socket.write(data, () => resolve(!this.#isClosed));
      if (!flushed && this.#isClosed) resolve(false);
    });
  }

  /** Writes without waiting (for small writes). */
  send(data: Uint8Array | string): void {
    if (!this.#isClosed && !this.#socket.destroyed) this.#socket.write(data);
  }

  /** Half-closes: the server sees the end of the request. */
  end(): void {
    if (!this.#socket.destroyed) this.#socket.end();
  }

  /** Stops reading (the server's sends back up). */
  pause(): void {
    this.#socket.pause();
  }

  /** Drops the connection. */
  destroy(): void {
    this.#socket.destroy();
    this.#isClosed = true;
    this.#wake();
  }

  /** Waits until `done()` holds or `timeoutMs` passes; returns whether it held. */
  waitUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
    return this.#waiters.until(done, timeoutMs);
  }

  #wake(): void {
    this.#waiters.wake();
  }
}

/**
 * A WebSocket client over raw TCP (`node:net`): any frame can be sent (bad
 * opcodes, unmasked, wrong lengths), from any loopback source address, and
 * it can stop reading. Server frames are parsed; pings are answered.
 * @module
 */
import net from "node:net";
import { encodeFrame, Opcode } from "./_ws_frames.ts";
import { Waiters } from "./_waiters.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Where and how to connect. */
export interface WsOpenOptions {
  port: number;
  /** Source address; only 127.0.0.1 and ::1 are local. */
  localAddress?: string;
  path?: string;
  /** Extra handshake header lines, or a whole replacement of the handshake. */
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** A connected WebSocket client. */
export class WsClient {
  /** Called with each text message. */
  ontext: (text: string) => void = () => {};
  /** The close code the server sent, if any. */
  closeCode: number | null = null;
  #socket: net.Socket;
  #buffer: Uint8Array = new Uint8Array(0);
  #fragments: Uint8Array[] = [];
  #isClosed = false;
  #waiters = new Waiters();

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    const closed = () => {
      this.#isClosed = true;
      this.#wake();
    };
    socket.on("close", closed);
    socket.on("end", closed);
    socket.on("error", closed);
  }

  /** Connects and completes the handshake; rejects unless the server answers 101. */
  static open(options: WsOpenOptions): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({
        host: "127.0.0.1",
        port: options.port,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      });
      const client = new WsClient(socket);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error("WebSocket handshake timeout"));
      }, options.timeoutMs ?? 5000);
      socket.once("error", (error: Error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.once("connect", () => {
        socket.setNoDelay(true);
        const headers = {
          host: `127.0.0.1:${options.port}`,
          upgrade: "websocket",
          connection: "Upgrade",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
          "sec-websocket-version": "13",
          ...options.headers,
        };
        socket.write(
          `GET ${options.path ?? "/v1"} HTTP/1.1\r\n` +
            Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n",
        );
      });
      let head: Uint8Array = new Uint8Array(0);
      const onData = (chunk: Uint8Array) => {
        head = concat(head, chunk);
        const end = findHeadEnd(head);
        if (end < 0) return;
        clearTimeout(timer);
        socket.off("data", onData);
        const status = Number(decoder.decode(head.subarray(0, 16)).split(" ")[1]);
        if (status !== 101) {
          socket.destroy();
          reject(new Error(`WebSocket handshake answered ${status}`));
          return;
        }
        socket.on("data", (c: Uint8Array) => client.#onData(c));
        if (head.length > end + 4) client.#onData(head.slice(end + 4));
        resolve(client);
      };
      socket.on("data", onData);
    });
  }

  /** The local (source) port of the connection. */
  get localPort(): number {
    return this.#socket.localPort ?? 0;
  }

  /** Whether the connection is closed. */
  get isClosed(): boolean {
    return this.#isClosed;
  }

  /** Sends a JSON message (or text) in one masked text frame. */
  send(message: unknown): void {
    const text = typeof message === "string" ? message : JSON.stringify(message);
    this.write(encodeFrame(encoder.encode(text), { opcode: Opcode.text }));
  }

  /** Writes raw bytes (frames or anything). */
  write(bytes: Uint8Array): void {
    if (!this.#isClosed && !this.#socket.destroyed) this.#socket.write(bytes);
  }

  /** Writes and resolves once the socket took the bytes (backpressure). */
  flush(bytes: Uint8Array): Promise<boolean> {
    if (this.#isClosed || this.#socket.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => this.#socket.write(bytes, () => resolve(!this.#isClosed)));
  }

  /** Stops reading: what the server sends backs up in its buffers. */
  pause(): void {
    this.#socket.pause();
  }

  /** Half-closes (the server reads EOF). */
  end(): void {
    if (!this.#socket.destroyed) this.#socket.end();
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

  #onData(chunk: Uint8Array): void {
    this.#buffer = concat(this.#buffer, chunk);
    let at = 0;
    while (this.#buffer.length - at >= 2) {
      const b = this.#buffer;
      const opcode = b[at]! & 0x0f;
      const isFinal = (b[at]! & 0x80) !== 0;
      let length = b[at + 1]! & 0x7f;
      let offset = at + 2;
      if (length === 126) {
        if (b.length - at < 4) break;
        length = (b[at + 2]! << 8) | b[at + 3]!;
        offset = at + 4;
      } else if (length === 127) {
        if (b.length - at < 10) break;
        length = Number(new DataView(b.buffer, b.byteOffset + at + 2, 8).getBigUint64(0));
        offset = at + 10;
      }
      if (b.length < offset + length) break;
      this.#onFrame(opcode, isFinal, b.subarray(offset, offset + length));
      at = offset + length;
    }
    this.#buffer = at === 0 ? this.#buffer : this.#buffer.slice(at);
    this.#wake();
  }

  #onFrame(opcode: number, isFinal: boolean, payload: Uint8Array): void {
    if (opcode === Opcode.ping) {
      this.write(encodeFrame(payload, { opcode: Opcode.pong }));
    } else if (opcode === Opcode.close) {
      this.closeCode = payload.length >= 2 ? (payload[0]! << 8) | payload[1]! : 1005;
      this.destroy();
    } else if (opcode === Opcode.text || opcode === Opcode.continuation) {
      this.#fragments.push(payload.slice());
      if (!isFinal) return;
      const text = decoder.decode(
        this.#fragments.length === 1 ? this.#fragments[0]! : concat(...this.#fragments),
      );
      this.#fragments = [];
      this.ontext(text);
    }
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  if (parts.length === 2 && parts[0]!.length === 0) return parts[1]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function findHeadEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

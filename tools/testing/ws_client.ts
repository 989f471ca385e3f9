/** WebSocket test clients: a message-queue client, and a raw TCP one that can stop reading. */
import net from "node:net";

// deno-lint-ignore no-explicit-any
type Msg = any;

/** A WebSocket client whose messages are awaited in order. */
export class TestSocket {
  readonly messages: Msg[] = [];
  #waiters: Array<() => void> = [];
  #ws: WebSocket;
  #nextId = 1;

  /** The close, whoever closed: its code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    this.closed = new Promise((resolve) =>
      ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason }))
    );
    ws.onmessage = (e) => {
      this.messages.push(JSON.parse(e.data));
      for (const w of this.#waiters.splice(0)) w();
    };
  }

  /** Connects and waits for the socket to open. */
  static async open(url: string): Promise<TestSocket> {
    const ws = new WebSocket(url);
    const socket = new TestSocket(ws);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = () => reject(new Error(`Cannot connect to ${url}`));
    });
    return socket;
  }

  /** Sends a JSON message (or raw text / bytes). */
  send(message: unknown): void {
    this.#ws.send(
      typeof message === "string" || message instanceof Uint8Array
        ? message
        : JSON.stringify(message),
    );
  }

  /** Waits for (and removes) the first message matching `match`; fails after 10 s rather than hang. */
  async take(match: (m: Msg) => boolean = () => true): Promise<Msg> {
    const deadline = performance.now() + 10_000;
    while (true) {
      const i = this.messages.findIndex(match);
      if (i >= 0) return this.messages.splice(i, 1)[0];
      if (performance.now() > deadline) {
        throw new Error("No matching WebSocket message within 10 s");
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 250);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Sends a message with a fresh id and waits for the answer with that id. */
  request(message: Record<string, unknown>): Promise<Msg> {
    const id = `r${this.#nextId++}`;
    this.send({ ...message, id });
    return this.take((m) => m.id === id);
  }

  /** Authenticates with empty credentials (a local client). */
  async auth(): Promise<Msg> {
    return await this.request({ type: "auth", payload: {} });
  }

  /** Closes and waits for the close. */
  async close(): Promise<void> {
    if (this.#ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((r) => this.#ws.addEventListener("close", r));
    this.#ws.close();
    await closed;
  }
}

/** A WebSocket client over raw TCP, so a test can stop reading (a stalled device). */
export class RawSocket {
  #sock: net.Socket;
  #buffer = new Uint8Array(0);
  readonly texts: string[] = [];
  /** The HTTP status of the handshake answer (101 when upgraded). */
  status = 0;
  /** The code of the close frame the server sent, if any. */
  closeCode: number | null = null;

  private constructor(sock: net.Socket) {
    this.#sock = sock;
  }

  /** Connects and completes the handshake. */
  static async open(
    host: string,
    port: number,
    options: { localAddress?: string; headers?: Record<string, string>; path?: string } = {},
  ): Promise<RawSocket> {
    const path = options.path ?? "/v1";
    const sock = net.connect({
      host,
      port,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    const raw = new RawSocket(sock);
    await new Promise<void>((resolve, reject) => {
      sock.once("error", reject);
      sock.once("connect", () => {
        sock.write(
          `GET ${path} HTTP/1.1\r\nHost: ${
            options.headers?.host ?? host
          }\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
            Object.entries(options.headers ?? {}).filter(([k]) => k !== "host").map(([k, v]) =>
              `${k}: ${v}\r\n`
            ).join("") + "\r\n",
        );
      });
      let head = new Uint8Array(0);
      const onData = (chunk: Uint8Array) => {
        const joined = new Uint8Array(head.length + chunk.length);
        joined.set(head);
        joined.set(chunk, head.length);
        head = joined;
        // Find the end of the HTTP head in bytes: frames may follow in the same chunk.
        let end = -1;
        for (let i = 0; i + 3 < head.length; i++) {
          if (head[i] === 13 && head[i + 1] === 10 && head[i + 2] === 13 && head[i + 3] === 10) {
            end = i;
            break;
          }
        }
        if (end < 0) return;
        raw.status = Number(new TextDecoder().decode(head.subarray(0, 20)).split(" ")[1]);
        sock.off("data", onData);
        sock.on("data", (c: Uint8Array) => raw.#onData(c));
        if (head.length > end + 4) raw.#onData(head.slice(end + 4));
        resolve();
      };
      sock.on("data", onData);
    });
    return raw;
  }

  /** Sends a masked text frame. */
  send(message: unknown): void {
    const payload = new TextEncoder().encode(JSON.stringify(message));
    const header = payload.length < 126
      ? [0x81, 0x80 | payload.length]
      : [0x81, 0x80 | 126, payload.length >> 8, payload.length & 255];
    const mask = [1, 2, 3, 4];
    const frame = new Uint8Array(header.length + 4 + payload.length);
    frame.set(header);
    frame.set(mask, header.length);
    payload.forEach((b, i) => (frame[header.length + 4 + i] = b ^ mask[i % 4]!));
    this.#sock.write(frame);
  }

  /** Calls `fn` once the connection closes. */
  onclose(fn: () => void): void {
    this.#sock.once("close", fn);
  }

  /** Stops reading: the server's sends back up. */
  pause(): void {
    this.#sock.pause();
  }

  /** Reads again. */
  resume(): void {
    this.#sock.resume();
  }

  /** Parsed text messages so far. */
  json(): Msg[] {
    return this.texts.map((t) => JSON.parse(t));
  }

  destroy(): void {
    this.#sock.destroy();
  }

  #onData(chunk: Uint8Array): void {
    const joined = new Uint8Array(this.#buffer.length + chunk.length);
    joined.set(this.#buffer);
    joined.set(chunk, this.#buffer.length);
    this.#buffer = joined;
    while (this.#buffer.length >= 2) {
      let length = this.#buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.#buffer.length < 4) return;
        length = (this.#buffer[2]! << 8) | this.#buffer[3]!;
        offset = 4;
      } else if (length === 127) {
        if (this.#buffer.length < 10) return;
        length = Number(
          new DataView(this.#buffer.buffer, this.#buffer.byteOffset + 2, 8).getBigUint64(0),
        );
        offset = 10;
      }
      if (this.#buffer.length < offset + length) return;
      const opcode = this.#buffer[0]! & 0x0f;
      if (opcode === 1) {
        this.texts.push(new TextDecoder().decode(this.#buffer.subarray(offset, offset + length)));
      }
      if (opcode === 8) {
        this.closeCode = length >= 2
          ? (this.#buffer[offset]! << 8) | this.#buffer[offset + 1]!
          : 1005;
        this.#sock.destroy(); // the server is done with us
        return;
      }
      this.#buffer = this.#buffer.slice(offset + length);
    }
  }
}

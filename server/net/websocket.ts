/**
 * A server WebSocket over an accepted connection, with the part of the
 * browser `WebSocket` API the socket server uses. Writes: one `conn.write`
 * in flight at a time, and whatever was queued meanwhile goes out in the
 * next, as one write; `bufferedAmount` is every byte queued and not yet
 * written. Closing follows RFC 6455 7.1: the close frame goes after what was
 * queued, the peer's close frame is awaited (`closeTimeoutMs`), then the TCP
 * connection itself is closed, even if the peer never read a byte. A peer
 * silent for `idleTimeoutMs` is pinged, and dropped if still silent after as long.
 * @module
 */
import { closeFrame, frame, frameHeader, Opcode } from "./ws_frames.ts";
import { FrameReader, type ReceiverLimits } from "./ws_receiver.ts";

/** Options of a server WebSocket. */
export interface WebSocketOptions extends Partial<ReceiverLimits> {
  /** Silence after which the peer is pinged, and then dropped (ms). */
  idleTimeoutMs?: number;
  /** How long a close waits for the peer's close frame before closing the TCP connection (ms). */
  closeTimeoutMs?: number;
}

/** How a socket ended, as its `onclose` hears it. */
export interface WebSocketCloseEvent {
  code: number;
  reason: string;
  /** Whether both close frames were exchanged. */
  wasClean: boolean;
}

const READ_BYTES = 16 * 1024;
/**
 * What a peer may still send once this side's close frame is queued, while its own close frame is
 * awaited: room for the frames it had in flight (none of them is delivered any more). Past it the
 * peer is failed and its connection ends; a peer that was sending a larger message then loses
 * only the clean close.
 */
export const AFTER_CLOSE_BYTES = 1024 * 1024;
/** Queued frames joined into one write up to this many bytes; a larger frame goes alone. */
const COALESCE_BYTES = 256 * 1024;
const encoder = new TextEncoder();

/** A WebSocket served on an accepted connection; made by `upgradeWebSocket`. */
export class ServerWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;

  /** CONNECTING until the 101 is written, then OPEN, CLOSING, CLOSED. */
  readyState = 0;
  onopen: (() => void) | null = null;
  /** A message; `size` is its length in bytes (a text's UTF-8, not its UTF-16 length). */
  onmessage: ((event: { data: string | Uint8Array; size: number }) => void) | null = null;
  /** Called once, when the TCP connection is closed. */
  onclose: ((event: WebSocketCloseEvent) => void) | null = null;
  #options: Required<WebSocketOptions>;
  #conn: Deno.Conn | null = null;
  #queue: Uint8Array[] = [];
  #buffered = 0;
  #isWriting = false;
  #isFlushScheduled = false;
  #isCloseSent = false;
  #isCloseReceived = false;
  /** Set by `terminate(graceMs)`: end once the queue is written. */
  #isEnding = false;
  #closeCode = 1006;
  #closeReason = "";
  #timers: Array<ReturnType<typeof setTimeout>> = [];
  #heard = true;
  #isPinged = false;
  #ended = Promise.withResolvers<void>();

  /** A socket not yet on a connection (`attach` puts it there). */
  constructor(options: WebSocketOptions = {}) {
    this.#options = {
      maxPayload: 64 * 1024 * 1024,
      maxFragments: 1024,
      maxBufferedChunks: 8192,
      idleTimeoutMs: 30_000,
      closeTimeoutMs: 5_000,
      ...options,
    };
  }

  /** Bytes queued and not yet written to the connection. */
  get bufferedAmount(): number {
    return this.#buffered;
  }

  /** Resolves once the TCP connection is closed. */
  get ended(): Promise<void> {
    return this.#ended.promise;
  }

  /** Sends a text (string) or binary message; ignored unless open. */
  send(data: string | Uint8Array): void {
    if (this.readyState !== ServerWebSocket.OPEN) return;
    const payload = typeof data === "string" ? encoder.encode(data) : data;
    this.#enqueue(
      frameHeader(typeof data === "string" ? Opcode.text : Opcode.binary, payload.length),
    );
    this.#enqueue(payload);
  }

  /**
   * Sends a whole frame as built by `binaryFrame` or `textFrame`: a message
   * fanned out to many sockets is framed once, and each queues the same bytes.
   */
  sendFrame(bytes: Uint8Array): void {
    if (this.readyState !== ServerWebSocket.OPEN) return;
    this.#enqueue(bytes);
  }

  /**
   * Sends one text message made of UTF-8 parts, which are queued as given
   * and never changed: a part shared by many sockets is encoded once.
   */
  sendParts(parts: readonly Uint8Array[]): void {
    if (this.readyState !== ServerWebSocket.OPEN) return;
    let length = 0;
    for (const part of parts) length += part.length;
    this.#enqueue(frameHeader(Opcode.text, length));
    for (const part of parts) this.#enqueue(part);
  }

  /** Starts the close handshake (after what is queued); the connection closes when it ends. */
  close(code = 1000, reason = ""): void {
    if (this.readyState >= ServerWebSocket.CLOSING || this.#conn === null) {
      if (this.#conn === null) this.readyState = ServerWebSocket.CLOSED;
      return;
    }
    this.readyState = ServerWebSocket.CLOSING;
    this.#closeCode = code;
    this.#closeReason = reason;
    this.#sendClose(code, reason);
    this.#timers.push(setTimeout(() => this.#end(), this.#options.closeTimeoutMs));
  }

  /**
   * Ends the connection: at once, or after `graceMs` for what is queued to be
   * written (a close frame just sent, at shutdown).
   */
  terminate(graceMs = 0): void {
    if (graceMs > 0 && (this.#isWriting || this.#queue.length > 0)) {
      this.#isEnding = true;
      this.#timers.push(setTimeout(() => this.#end(), graceMs));
    } else {
      this.#end();
    }
  }

  /**
   * Puts the socket on `conn`, once the 101 answer is written: `head` holds
   * bytes the client sent after its request. Resolves once the connection is closed.
   */
  attach(conn: Deno.Conn, head: Uint8Array): Promise<void> {
    this.#conn = conn;
    const wasClosed = this.readyState !== ServerWebSocket.CONNECTING;
    this.readyState = ServerWebSocket.OPEN;
    if (wasClosed) {
      this.#end();
      return this.ended;
    }
    this.#timers.push(setInterval(() => this.#idleCheck(), this.#options.idleTimeoutMs));
    const reader = new FrameReader(this.#options, {
      message: (data, size) => {
        if (this.readyState === ServerWebSocket.OPEN) this.onmessage?.({ data, size });
      },
      ping: (data) => this.#control(Opcode.pong, data),
      close: (code, reason) => this.#onPeerClose(code, reason),
      error: (code, reason) => this.close(code, reason),
    });
    this.onopen?.();
    void this.#read(conn, reader, head);
    return this.ended;
  }

  async #read(conn: Deno.Conn, reader: FrameReader, head: Uint8Array): Promise<void> {
    if (head.length > 0) reader.write(head);
    let buffer = new Uint8Array(READ_BYTES);
    /** Bytes read since this side's close frame was queued. */
    let afterClose = 0;
    try {
      while (this.readyState !== ServerWebSocket.CLOSED) {
        const n = await conn.read(buffer);
        if (n === null) break;
        this.#heard = true;
        // A peer that sends on after this side's close, past what a peer's close could follow, is
        // failed (RFC 6455 7.1.7): its connection ends now, not at the close deadline (a
        // flooder closed for not reading cost a core for that long, every frame parsed).
        if (this.#isCloseSent && (afterClose += n) > AFTER_CLOSE_BYTES) break;
        if (!reader.isOpen) continue; // after a close or an error: read on, for the peer's close
        // Whole frames are handled at once and the buffer is read into again; the part of a
        // frame the receiver keeps (views of this buffer) moves reading to a new buffer.
        if (reader.write(buffer.subarray(0, n))) buffer = new Uint8Array(READ_BYTES);
      }
    } catch {
      // reset, or closed here
    }
    this.#end();
  }

  #onPeerClose(code: number, reason: string): void {
    this.#isCloseReceived = true;
    if (!this.#isCloseSent) {
      this.#closeCode = code;
      this.#closeReason = reason;
      this.readyState = ServerWebSocket.CLOSING;
      this.#sendClose(code, reason);
    }
    // The server closes the TCP connection first (RFC 6455 7.1.1), once its close frame is out.
    if (!this.#isWriting && this.#queue.length === 0) this.#end();
    else this.#timers.push(setTimeout(() => this.#end(), this.#options.closeTimeoutMs));
  }

  #sendClose(code: number, reason: string): void {
    this.#isCloseSent = true;
    this.#enqueue(closeFrame(code, reason));
  }

  #control(opcode: number, payload: Uint8Array): void {
    if (this.#isCloseSent) return;
    this.#enqueue(frame(opcode, payload));
  }

  #idleCheck(): void {
    if (this.#heard) {
      this.#heard = false;
      this.#isPinged = false;
    } else if (!this.#isPinged) {
      this.#isPinged = true;
      this.#control(Opcode.ping, new Uint8Array(0));
    } else {
      this.#end(); // no pong nor anything else for a whole idle period: gone
    }
  }

  #enqueue(bytes: Uint8Array): void {
    this.#queue.push(bytes);
    this.#buffered += bytes.length;
    if (this.#isWriting || this.#isFlushScheduled) return;
    // Sends of this task (an answer and an update, a fan-out) go out in one write.
    this.#isFlushScheduled = true;
    queueMicrotask(() => {
      this.#isFlushScheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    const conn = this.#conn;
    if (conn === null || this.#isWriting || this.readyState === ServerWebSocket.CLOSED) return;
    this.#isWriting = true;
    try {
      while (this.#queue.length > 0) {
        const chunk = this.#take();
        let written = 0;
        while (written < chunk.length) {
          const n = await conn.write(written === 0 ? chunk : chunk.subarray(written));
          written += n;
          this.#buffered -= n;
        }
      }
    } catch {
      this.#isWriting = false;
      return this.#end();
    }
    this.#isWriting = false;
    if ((this.#isCloseSent && this.#isCloseReceived) || this.#isEnding) this.#end();
  }

  /** The next write: the first queued buffer, joined with those after it up to `COALESCE_BYTES`. */
  #take(): Uint8Array {
    const queue = this.#queue;
    let count = 1;
    let length = queue[0]!.length;
    while (count < queue.length && length + queue[count]!.length <= COALESCE_BYTES) {
      length += queue[count++]!.length;
    }
    if (count === 1) return queue.shift()!;
    const chunk = new Uint8Array(length);
    let offset = 0;
    for (const part of queue.splice(0, count)) {
      chunk.set(part, offset);
      offset += part.length;
    }
    return chunk;
  }

  /** Closes the TCP connection (pending reads and writes fail) and reports the close once. */
  #end(): void {
    if (this.readyState === ServerWebSocket.CLOSED) return;
    this.readyState = ServerWebSocket.CLOSED;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers = [];
    this.#queue = [];
    this.#buffered = 0;
    try {
      this.#conn?.close();
    } catch { /* already closed */ }
    const wasClean = this.#isCloseSent && this.#isCloseReceived;
    const event = wasClean
      ? { code: this.#closeCode, reason: this.#closeReason, wasClean }
      : { code: 1006, reason: "", wasClean };
    try {
      this.onclose?.(event);
    } finally {
      this.#ended.resolve();
    }
  }
}

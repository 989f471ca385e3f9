/**
 * The reading half of a server WebSocket: npm `ws`'s `Receiver` (a Node
 * `Writable`: bytes in, events out), with its RFC 6455 checks: client frames
 * masked, control frames final and short, valid opcodes and close codes,
 * UTF-8 of text and close reasons, and limits on message size, fragments and
 * buffered chunks. Typed here, since `ws` ships no types.
 * @module
 */
import { Receiver } from "ws";

/** What a receiver reports; data handlers run synchronously inside `write`. */
export interface ReceiverEvents {
  /** A whole message: text (valid UTF-8, decoded) or binary (a copy), and its size in bytes. */
  message(data: string | Uint8Array, size: number): void;
  ping(data: Uint8Array): void;
  /** The peer's close frame: its code (1005 for none) and reason. */
  close(code: number, reason: string): void;
  /** A protocol violation or a limit: the close code to answer with, and why. */
  error(code: number, reason: string): void;
}

/** Limits of one receiver. */
export interface ReceiverLimits {
  /** Bytes of one message, all fragments together; over it: 1009. */
  maxPayload: number;
  /** Fragments of one message; over it: 1008. */
  maxFragments: number;
  /** Reads held for one unfinished frame; over it: 1008. */
  maxBufferedChunks: number;
}

/** The bits of `ws`'s Receiver used here. */
interface WsReceiver {
  write(chunk: Uint8Array): boolean;
  // Private fields of ws (the same since ws 2), read to know whether it holds views of a chunk.
  _state?: number;
  _bufferedBytes?: number;
  _fragments?: unknown[];
  on(event: string, listener: (...args: never[]) => void): void;
  destroyed: boolean;
  writableEnded: boolean;
}

/** `ws`'s error codes that are not a plain protocol error (1002). */
const CLOSE_CODES: Record<string, [number, string]> = {
  WS_ERR_INVALID_UTF8: [1007, "Invalid UTF-8"],
  WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: [1009, "Message too big"],
  WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH: [1009, "Message too big"],
  WS_ERR_TOO_MANY_BUFFERED_PARTS: [1008, "Message in too many parts"],
};

/** A frame reader for one connection. */
export class FrameReader {
  #receiver: WsReceiver;
  #isDone = false;

  /** Starts a server-side receiver (client frames must be masked). */
  constructor(limits: ReceiverLimits, events: ReceiverEvents) {
    this.#receiver = new Receiver({
      isServer: true,
      maxPayload: limits.maxPayload,
      maxFragments: limits.maxFragments,
      maxBufferedChunks: limits.maxBufferedChunks,
    }) as unknown as WsReceiver;
    const decoder = new TextDecoder();
    const on = this.#receiver.on.bind(this.#receiver) as (
      event: string,
      listener: (...args: never[]) => void,
    ) => void;
    on("message", (data: Uint8Array, isBinary: boolean) => {
      // `data` may be a view into a read buffer: decode or copy it now.
      events.message(isBinary ? data.slice() : decoder.decode(data), data.byteLength);
    });
    on("ping", (data: Uint8Array) => events.ping(data.slice()));
    on("conclude", (code: number, reason: Uint8Array) => {
      this.#isDone = true;
      events.close(code, decoder.decode(reason));
    });
    on("error", (error: Error & { code?: string }) => {
      if (this.#isDone) return;
      this.#isDone = true;
      const [code, reason] = CLOSE_CODES[error.code ?? ""] ?? [1002, "Protocol error"];
      events.error(code, reason);
    });
  }

  /** Whether more bytes are read: false after a close frame or an error. */
  get isOpen(): boolean {
    return !this.#isDone && !this.#receiver.destroyed && !this.#receiver.writableEnded;
  }

  /**
   * Feeds bytes read from the connection.
   * @returns whether the receiver kept views of `chunk` (an unfinished frame):
   * then `chunk` must not be written over
   */
  write(chunk: Uint8Array): boolean {
    if (!this.isOpen) return false;
    this.#receiver.write(chunk);
    return !this.isBetweenMessages;
  }

  /**
   * Whether the receiver waits for the first byte of a frame and holds no
   * fragment: then it keeps no view of what it was given (not even a masking
   * key). False where ws's private fields are not as expected, which is safe.
   */
  get isBetweenMessages(): boolean {
    const r = this.#receiver;
    return r._state === 0 && r._bufferedBytes === 0 && r._fragments?.length === 0;
  }
}

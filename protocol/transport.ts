/**
 * The byte pipe under the RPC engines: a small `Transport` interface, a
 * newline-delimited JSON implementation over streams, and an in-memory pair
 * for tests that run the player in-process.
 * @module
 */
import { RpcError, type RpcMessage, toRpcMessage } from "./jsonrpc.ts";

/** A message pipe; the RPC engines know nothing else about the connection. */
export interface Transport {
  /** Sends one message; resolves once it is handed to the pipe. */
  send(message: RpcMessage): Promise<void>;
  /** Sends several messages in order, in as few writes as the pipe allows. */
  sendMany(messages: RpcMessage[]): Promise<void>;
  /** Called for each message received, in order. */
  onmessage?: (message: RpcMessage) => void;
  /** Called for a line that is not a JSON-RPC message. */
  onerror?: (error: Error) => void;
  /** Called once when the pipe ends, for whatever reason. */
  onclose?: () => void;
  /** Starts reading; resolves when the pipe has ended. */
  start(): Promise<void>;
  /** Closes the pipe; `onclose` follows. */
  close(): Promise<void>;
}

/** The longest line accepted, so a broken peer cannot grow memory forever. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Newline-delimited JSON-RPC over a readable and a writable byte stream
 * (a child's stdout/stdin, or this process's stdin/stdout).
 */
export class LineTransport implements Transport {
  onmessage?: (message: RpcMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  #readable: ReadableStream<Uint8Array>;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #encoder = new TextEncoder();
  #isClosed = false;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;

  /** Wraps the two streams; call `start()` to begin reading. */
  constructor(readable: ReadableStream<Uint8Array>, writable: WritableStream<Uint8Array>) {
    this.#readable = readable;
    this.#writer = writable.getWriter();
  }

  /** Encodes the message as one line and writes it. */
  send(message: RpcMessage): Promise<void> {
    return this.sendMany([message]);
  }

  /** Writes several messages with one write call, in order. */
  /**
   * Writes messages in order. While a write is in flight, new messages wait
   * and go out together when it completes: an idle pipe writes at once, a
   * busy one in bursts, with one write call each.
   */
  async sendMany(messages: RpcMessage[]): Promise<void> {
    if (this.#isClosed) throw new Error("Transport is closed");
    let text = "";
    for (const message of messages) text += JSON.stringify(message) + "\n";
    await this.#writer.write(this.#encoder.encode(text));
  }

  async start(): Promise<void> {
    const decoder = new TextDecoder();
    this.#reader = this.#readable.getReader();
    // Pieces of the current line; each chunk is scanned once, so a multi-megabyte
    // snapshot line costs linear time.
    let pieces: string[] = [];
    let pending = 0;
    try {
      while (true) {
        const { value, done } = await this.#reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        let start = 0;
        let newline = text.indexOf("\n");
        while (newline >= 0) {
          pieces.push(text.slice(start, newline));
          this.#dispatch(pieces.length === 1 ? pieces[0]! : pieces.join(""));
          pieces = [];
          pending = 0;
          start = newline + 1;
          newline = text.indexOf("\n", start);
        }
        if (start < text.length) {
          pieces.push(text.slice(start));
          pending += text.length - start;
          if (pending > MAX_LINE_BYTES) {
            throw new Error(`Line too long: over ${MAX_LINE_BYTES} bytes`);
          }
        }
      }
    } catch (error) {
      if (!this.#isClosed) this.onerror?.(error as Error);
    } finally {
      this.#finish();
    }
  }

  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    await this.#writer.close().catch(() => {});
    await this.#reader?.cancel().catch(() => {});
    this.#finish();
  }

  #dispatch(line: string): void {
    if (line.trim() === "") return;
    let message: RpcMessage;
    try {
      message = toRpcMessage(JSON.parse(line));
    } catch (error) {
      this.onerror?.(error instanceof RpcError ? error : new Error(`Bad JSON line: ${line}`));
      return;
    }
    this.onmessage?.(message);
  }

  #hasFinished = false;
  #finish(): void {
    // The read side ended; writes stay possible until close(), so a peer can
    // still answer what it read before the end.
    if (this.#hasFinished) return;
    this.#hasFinished = true;
    this.onclose?.();
  }
}

/** One end of an in-memory pair; messages are delivered asynchronously, in order. */
class MemoryTransport implements Transport {
  onmessage?: (message: RpcMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  peer?: MemoryTransport;
  #isClosed = false;
  #done = Promise.withResolvers<void>();

  send(message: RpcMessage): Promise<void> {
    if (this.#isClosed) return Promise.reject(new Error("Transport is closed"));
    // A JSON round trip keeps the in-memory pair honest about what crosses the wire.
    const copy = JSON.parse(JSON.stringify(message)) as RpcMessage;
    const peer = this.peer;
    queueMicrotask(() => peer?.onmessage?.(copy));
    return Promise.resolve();
  }

  async sendMany(messages: RpcMessage[]): Promise<void> {
    for (const message of messages) await this.send(message);
  }

  start(): Promise<void> {
    return this.#done.promise;
  }

  close(): Promise<void> {
    if (this.#isClosed) return Promise.resolve();
    this.#isClosed = true;
    queueMicrotask(() => {
      this.onclose?.();
      this.#done.resolve();
      void this.peer?.close();
    });
    return Promise.resolve();
  }
}

/** Two connected in-memory transports, for running the player in-process. */
export function memoryTransportPair(): [Transport, Transport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

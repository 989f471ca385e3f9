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

/** The bytes under a `LineTransport`: a read side and a write side. */
export interface BytePipe {
  /** The next bytes, or null at the end; the view is only valid until the next call. */
  read(): Promise<Uint8Array | null>;
  /** Writes every byte, in order; resolves once the pipe has them. */
  write(bytes: Uint8Array): Promise<void>;
  /** Ends the write side and stops reading. */
  close(): Promise<void>;
}

/**
 * A pipe over web streams: a child's stdout and stdin, or streams in tests.
 * A byte stream (a child's stdout) is read into one reused buffer.
 */
export function streamPipe(
  readable: ReadableStream<Uint8Array>,
  writable: WritableStream<Uint8Array>,
): BytePipe {
  const writer = writable.getWriter();
  let buffer = new Uint8Array(64 * 1024);
  let byob: ReadableStreamBYOBReader | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    byob = readable.getReader({ mode: "byob" });
  } catch {
    reader = readable.getReader(); // not a byte stream
  }
  return {
    async read() {
      if (reader) {
        const { value, done } = await reader.read();
        return done ? null : value;
      }
      const { value, done } = await byob!.read(buffer);
      if (done || !value) return null;
      buffer = new Uint8Array(value.buffer); // the read moved the buffer into `value`
      return value;
    },
    write: (bytes) => writer.write(bytes),
    async close() {
      await writer.close().catch(() => {});
      await (reader ?? byob)!.cancel().catch(() => {});
    },
  };
}

/** The longest line accepted, so a broken peer cannot grow memory forever. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Newline-delimited JSON-RPC over a byte pipe (a child's stdout/stdin, or
 * this process's stdin/stdout).
 */
export class LineTransport implements Transport {
  onmessage?: (message: RpcMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  #pipe: BytePipe;
  #encoder = new TextEncoder();
  #isClosed = false;

  /** Wraps the pipe; call `start()` to begin reading. */
  constructor(pipe: BytePipe) {
    this.#pipe = pipe;
  }

  /** Encodes the message as one line and writes it. */
  send(message: RpcMessage): Promise<void> {
    return this.sendMany([message]);
  }

  /** Writes several messages in order, with one write call. */
  async sendMany(messages: RpcMessage[]): Promise<void> {
    if (this.#isClosed) throw new Error("Transport is closed");
    let text = "";
    for (const message of messages) text += JSON.stringify(message) + "\n";
    await this.#pipe.write(this.#encoder.encode(text));
  }

  async start(): Promise<void> {
    const decoder = new TextDecoder();
    // Pieces of the current line; each chunk is scanned once, so a multi-megabyte
    // snapshot line costs linear time.
    let pieces: string[] = [];
    let pending = 0;
    try {
      while (true) {
        const value = await this.#pipe.read();
        if (value === null) break;
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
    await this.#pipe.close();
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

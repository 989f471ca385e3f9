/**
 * The byte pipe under the RPC engines: a small `Transport` interface, a
 * newline-delimited JSON implementation over streams, and an in-memory pair
 * for tests that run the player in-process.
 * @module
 */
import { RpcError, RpcErrorCode, type RpcMessage, toRpcMessage } from "./jsonrpc.ts";

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
  /** Optional: writes `text` as UTF-8, as `write` its bytes, without a new array per write. */
  writeText?(text: string): Promise<void>;
  /** Ends the write side and stops reading. */
  close(): Promise<void>;
  /**
   * Optional, in place of `read` calls: hands each read to `onBytes` as it comes, synchronously
   * (the view is only valid during the call), with no promise per read; resolves at the end,
   * rejects on a failed read or a throw of `onBytes`. `LineTransport` uses it when present.
   */
  listen?(onBytes: (bytes: Uint8Array) => void): Promise<void>;
}

/**
 * A pipe over web streams: a child's stdout and stdin, or streams in tests.
 * A byte stream (a child's stdout) is read into one reused buffer; text is
 * written from one kept buffer (`keptWriter`).
 */
export function streamPipe(
  readable: ReadableStream<Uint8Array>,
  writable: WritableStream<Uint8Array>,
): BytePipe {
  const writer = writable.getWriter();
  const writeText = keptWriter((bytes) => writer.write(bytes));
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
    writeText,
    async close() {
      await writer.close().catch(() => {});
      await (reader ?? byob)!.cancel().catch(() => {});
    },
  };
}

/**
 * `BytePipe.writeText` over `write`: the text encoded into one buffer kept for the next write,
 * reused once the write of it has resolved (a stream's sink is done with its bytes then). A
 * write while the buffer is still being written, or of a text that may not fit it, gets its own
 * array. `TextEncoder.encode` cost 1.3-1.8 us for a 400-byte batch of actions, `encodeInto` 0.2-0.3
 * (a new external array from Rust per call against none: measured, Deno 2.9.6).
 */
export function keptWriter(
  write: (bytes: Uint8Array) => Promise<void>,
  size = 64 * 1024,
): (text: string) => Promise<void> {
  const encoder = new TextEncoder();
  const kept = new Uint8Array(size);
  let isKeptBusy = false;
  const release = () => {
    isKeptBusy = false;
  };
  return (text) => {
    // UTF-8 takes at most 3 bytes a UTF-16 unit.
    if (isKeptBusy || 3 * text.length > kept.length) return write(encoder.encode(text));
    const { written } = encoder.encodeInto(text, kept);
    isKeptBusy = true;
    const done = write(kept.subarray(0, written));
    done.then(release, release);
    return done;
  };
}

/** The longest line a `LineTransport` accepts by default (a snapshot of a big show needs tens of MiB). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

const NEWLINE = 0x0a;

/** Options of `LineTransport`. */
export interface LineTransportOptions {
  /** The longest line read, in bytes, newline excluded (default `MAX_LINE_BYTES`). */
  maxLineBytes?: number;
  /** What a line is called in the refusal of one too long (default `Line`; the player's: `Request line`). */
  label?: string;
  /** A check of a whole line before it is parsed: the refusal, or null to parse it (the player's depth bound). */
  precheck?: (line: string) => RpcError | null;
  /**
   * The largest buffer of a line that spanned reads kept for the next one, in
   * bytes (default 1 MiB: the service lets a snapshot's go; the player keeps
   * up to its longest line, see `#partial`).
   */
  retainBytes?: number;
}

/** Options of `LineReader`. */
export interface LineReaderOptions {
  /** The longest line read, in bytes, newline excluded (default `MAX_LINE_BYTES`). */
  maxLineBytes?: number;
  /**
   * The largest buffer of a line that spanned reads kept for the next one, in
   * bytes (default 1 MiB).
   */
  retainBytes?: number;
}

/**
 * Newline-delimited lines out of a stream of bytes, bounded: the one line
 * reader of the project. `LineTransport` reads JSON-RPC with it (the service
 * the player's stdout, the player its stdin); the ISF checker and the player
 * read each other's JSON lines with it (`player/isf/check_child.ts`,
 * `check_stdio.ts`). Each complete line goes to `onLine`; a line over the limit
 * to `onTooLong`, once, and is dropped as it arrives (its bytes skipped up to
 * the next newline, never buffered).
 *
 * A line that spans reads is kept as bytes in one reused buffer and decoded
 * once. Measured with 1,000 of the `player_fuzz` probe's long lines (1-8 MiB):
 * the player peaked at 281-293 MB resident with the reader this replaced
 * (chunks decoded to strings, joined per line) and at 181-199 MB with this one
 * and `player/stdio_pipe.ts`.
 */
export class LineReader {
  /** The longest line taken, bytes. */
  readonly maxLineBytes: number;
  #onLine: (line: string) => void;
  #onTooLong: () => void;
  #decoder = new TextDecoder();
  #retainBytes: number;
  /**
   * The start of a line that spans reads, in `#partial[0, #partialLength)`.
   * The buffer is kept for the next such line (up to `retainBytes`): in the
   * player, one let go after each long line was garbage V8 freed late, 70 MB
   * more at peak under a flood of long lines.
   */
  #partial = new Uint8Array(0);
  #partialLength = 0;
  /** Dropping a line over the limit until its newline. */
  #isSkipping = false;

  /** Lines to `onLine`, a line over the limit reported to `onTooLong`. */
  constructor(
    onLine: (line: string) => void,
    onTooLong: () => void,
    options: LineReaderOptions = {},
  ) {
    this.#onLine = onLine;
    this.#onTooLong = onTooLong;
    this.maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.#retainBytes = options.retainBytes ?? 1024 * 1024;
  }

  /** Splits one read into lines; the view is only valid during this call. */
  receive(chunk: Uint8Array): void {
    let start = 0;
    if (this.#partialLength > 0 || this.#isSkipping) {
      const newline = chunk.indexOf(NEWLINE);
      if (newline < 0) return this.#keep(chunk);
      this.#keep(chunk.subarray(0, newline));
      this.#endPartial();
      start = newline + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last >= start) {
      this.#lines(chunk, start, last);
      start = last + 1;
    }
    if (start < chunk.length) this.#keep(chunk.subarray(start));
  }

  /** Reads `readable` to its end, line by line; resolves then (a line cut short is dropped). */
  async readAll(readable: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of readable) this.receive(chunk);
    } finally {
      this.clear();
    }
  }

  /** Drops the start of a line kept (the bytes ended): it is never delivered. */
  clear(): void {
    this.#partial = new Uint8Array(0);
    this.#partialLength = 0;
    this.#isSkipping = false;
  }

  /** The complete lines in `chunk[start, end)`: decoded at once when they all fit the limit. */
  #lines(chunk: Uint8Array, start: number, end: number): void {
    if (end - start <= this.maxLineBytes) {
      const text = this.#decoder.decode(chunk.subarray(start, end));
      let from = 0;
      let newline = text.indexOf("\n");
      while (newline >= 0) {
        this.#onLine(text.slice(from, newline));
        from = newline + 1;
        newline = text.indexOf("\n", from);
      }
      this.#onLine(from === 0 ? text : text.slice(from));
      return;
    }
    // A read longer than a line may be (a test's pipe): each line on its own.
    while (start <= end) {
      const newline = chunk.indexOf(NEWLINE, start);
      const stop = newline < 0 || newline > end ? end : newline;
      if (stop - start > this.maxLineBytes) this.#onTooLong();
      else this.#onLine(this.#decoder.decode(chunk.subarray(start, stop)));
      start = stop + 1;
    }
  }

  /** Appends the start of a line to the buffer, or drops it when the line is over the limit. */
  #keep(bytes: Uint8Array): void {
    if (this.#isSkipping) return;
    const length = this.#partialLength + bytes.length;
    if (length > this.maxLineBytes) {
      this.#isSkipping = true;
      this.#partialLength = 0;
      this.#onTooLong();
      return;
    }
    if (length > this.#partial.length) {
      const grown = new Uint8Array(
        Math.min(this.maxLineBytes, Math.max(length, 2 * this.#partial.length, 64 * 1024)),
      );
      grown.set(this.#partial.subarray(0, this.#partialLength));
      this.#partial = grown;
    }
    this.#partial.set(bytes, this.#partialLength);
    this.#partialLength = length;
  }

  /** The line that spanned reads has ended: deliver it, or stop skipping. */
  #endPartial(): void {
    if (this.#isSkipping) {
      this.#isSkipping = false;
      return;
    }
    const line = this.#decoder.decode(this.#partial.subarray(0, this.#partialLength));
    this.#partialLength = 0;
    if (this.#partial.length > this.#retainBytes) this.#partial = new Uint8Array(0);
    this.#onLine(line);
  }
}

/**
 * Newline-delimited JSON-RPC over a byte pipe, read by the one line reader
 * (`LineReader`; `player/request_transport.ts` with the player's bounds). A
 * refused or unparsable line is reported to `onerror` as an `RpcError` and
 * reading goes on: INVALID_REQUEST for one too long or no JSON-RPC message,
 * PARSE_ERROR for one that is no JSON; errors quote no input.
 */
export class LineTransport implements Transport {
  /** Called for each message read, in order. */
  onmessage?: (message: RpcMessage) => void;
  /** Called for a line refused or unparsable (an `RpcError`), or a failed read. */
  onerror?: (error: Error) => void;
  /** Called once when the read side ends. */
  onclose?: () => void;
  #pipe: BytePipe;
  #encoder = new TextEncoder();
  #reader: LineReader;
  #label: string;
  #precheck: ((line: string) => RpcError | null) | undefined;
  #isClosed = false;
  #hasFinished = false;

  /** Wraps the pipe; call `start()` to begin reading. */
  constructor(pipe: BytePipe, options: LineTransportOptions = {}) {
    this.#pipe = pipe;
    this.#label = options.label ?? "Line";
    this.#precheck = options.precheck;
    this.#reader = new LineReader((line) => this.#dispatch(line), () => this.#refuseLong(), {
      maxLineBytes: options.maxLineBytes ?? MAX_LINE_BYTES,
      retainBytes: options.retainBytes ?? 1024 * 1024,
    });
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
    if (this.#pipe.writeText) await this.#pipe.writeText(text);
    else await this.#pipe.write(this.#encoder.encode(text));
  }

  /** Reads until the pipe ends; resolves then. A line cut short by the end is dropped. */
  async start(): Promise<void> {
    const reader = this.#reader;
    try {
      if (this.#pipe.listen) await this.#pipe.listen((chunk) => reader.receive(chunk));
      else {
        while (true) {
          const chunk = await this.#pipe.read();
          if (chunk === null) break;
          reader.receive(chunk);
        }
      }
    } catch (error) {
      if (!this.#isClosed) this.onerror?.(error as Error);
    } finally {
      this.#finish();
    }
  }

  /** Closes the pipe; `onclose` follows. */
  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    await this.#pipe.close();
    this.#finish();
  }

  #refuseLong(): void {
    this.onerror?.(
      new RpcError(
        RpcErrorCode.INVALID_REQUEST,
        `${this.#label} too long: over ${this.#reader.maxLineBytes} bytes`,
      ),
    );
  }

  #dispatch(line: string): void {
    if (line.length === 0 || (line.charCodeAt(0) <= 0x20 && line.trim() === "")) return;
    const refusal = this.#precheck?.(line);
    if (refusal) return this.onerror?.(refusal);
    let message: RpcMessage;
    try {
      message = toRpcMessage(JSON.parse(line));
    } catch (error) {
      this.onerror?.(
        error instanceof RpcError ? error : new RpcError(
          RpcErrorCode.PARSE_ERROR,
          // V8's message quotes at most a few characters of the line.
          `Line is not JSON: ${(error as Error).message.slice(0, 200)}`,
        ),
      );
      return;
    }
    this.onmessage?.(message);
  }

  #finish(): void {
    // The read side ended; writes stay possible until close(), so a peer can
    // still answer what it read before the end.
    if (this.#hasFinished) return;
    this.#hasFinished = true;
    this.#reader.clear();
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

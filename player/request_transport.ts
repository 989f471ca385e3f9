/**
 * The player's end of the newline-delimited JSON-RPC pipe, with bounds on
 * what it reads: a request line is at most 16 MiB and nests at most 1,000
 * levels. `LineTransport` (the service's end) accepts lines of 64 MiB, which a
 * snapshot of a big show needs; a request never comes near either bound.
 *
 * A line that spans reads is kept as bytes in one reused buffer and decoded
 * once; a line over the limit is dropped as it arrives (its bytes skipped up
 * to the next newline, never buffered); errors quote no input. Measured with
 * 1,000 of the `player_fuzz` probe's long lines (1-8 MiB): the player peaked
 * at 281-293 MB resident with `LineTransport` (chunks decoded to strings,
 * joined per line) and at 181-199 MB with this reader and `stdio_pipe.ts`.
 * @module
 */
import { RpcError, RpcErrorCode, type RpcMessage, toRpcMessage } from "../protocol/jsonrpc.ts";
import type { BytePipe, Transport } from "../protocol/transport.ts";
import { isNestedDeeper } from "../lib/json_depth.ts";

/** The longest request line the player reads (bytes, newline excluded); a longer one is refused. */
export const MAX_REQUEST_LINE_BYTES = 16 * 1024 * 1024;

/** The deepest nesting of arrays and objects a request may have; a deeper one is refused unparsed. */
export const MAX_REQUEST_DEPTH = 1000;

const NEWLINE = 0x0a;

/** Options of `RequestTransport`. */
export interface RequestTransportOptions {
  /** The longest line read, in bytes (default `MAX_REQUEST_LINE_BYTES`). */
  maxLineBytes?: number;
  /** The deepest nesting parsed (default `MAX_REQUEST_DEPTH`). */
  maxDepth?: number;
}

/**
 * Newline-delimited JSON-RPC over a byte pipe (the player's stdin and
 * stdout), refusing lines over the bounds. A refused or unparsable line is
 * reported to `onerror` as an `RpcError`: INVALID_REQUEST for one too long or
 * too deep or no JSON-RPC message, PARSE_ERROR for one that is no JSON.
 */
export class RequestTransport implements Transport {
  /** Called for each message read, in order. */
  onmessage?: (message: RpcMessage) => void;
  /** Called for a line refused or unparsable (an `RpcError`), or a failed read. */
  onerror?: (error: Error) => void;
  /** Called once when the read side ends. */
  onclose?: () => void;
  #pipe: BytePipe;
  #encoder = new TextEncoder();
  #decoder = new TextDecoder();
  #maxLineBytes: number;
  #maxDepth: number;
  /**
   * The start of a line that spans reads, in `#partial[0, #partialLength)`.
   * The buffer is kept for the next such line (at most `maxLineBytes`): one
   * let go after each long line was garbage V8 freed late, 70 MB more at peak.
   */
  #partial = new Uint8Array(0);
  #partialLength = 0;
  /** Dropping a line over the limit until its newline. */
  #isSkipping = false;
  #isClosed = false;
  #hasFinished = false;

  /** Wraps the pipe; call `start()` to begin reading. */
  constructor(pipe: BytePipe, options: RequestTransportOptions = {}) {
    this.#pipe = pipe;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_REQUEST_LINE_BYTES;
    this.#maxDepth = options.maxDepth ?? MAX_REQUEST_DEPTH;
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

  /** Reads until the pipe ends; resolves then. A line cut short by the end is dropped. */
  async start(): Promise<void> {
    try {
      while (true) {
        const chunk = await this.#pipe.read();
        if (chunk === null) break;
        this.#receive(chunk);
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

  /** Splits one read into lines; the view is only valid during this call. */
  #receive(chunk: Uint8Array): void {
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

  /** The complete lines in `chunk[start, end)`: decoded at once when they all fit the limit. */
  #lines(chunk: Uint8Array, start: number, end: number): void {
    if (end - start <= this.#maxLineBytes) {
      const text = this.#decoder.decode(chunk.subarray(start, end));
      let from = 0;
      let newline = text.indexOf("\n");
      while (newline >= 0) {
        this.#dispatch(text.slice(from, newline));
        from = newline + 1;
        newline = text.indexOf("\n", from);
      }
      this.#dispatch(from === 0 ? text : text.slice(from));
      return;
    }
    // A read longer than a line may be (a test's pipe): each line on its own.
    while (start <= end) {
      const newline = chunk.indexOf(NEWLINE, start);
      const stop = newline < 0 || newline > end ? end : newline;
      if (stop - start > this.#maxLineBytes) this.#refuseLong();
      else this.#dispatch(this.#decoder.decode(chunk.subarray(start, stop)));
      start = stop + 1;
    }
  }

  /** Appends the start of a line to the buffer, or drops it when the line is over the limit. */
  #keep(bytes: Uint8Array): void {
    if (this.#isSkipping) return;
    const length = this.#partialLength + bytes.length;
    if (length > this.#maxLineBytes) {
      this.#isSkipping = true;
      this.#partialLength = 0;
      this.#refuseLong();
      return;
    }
    if (length > this.#partial.length) {
      const grown = new Uint8Array(
        Math.min(this.#maxLineBytes, Math.max(length, 2 * this.#partial.length, 64 * 1024)),
      );
      grown.set(this.#partial.subarray(0, this.#partialLength));
      this.#partial = grown;
    }
    this.#partial.set(bytes, this.#partialLength);
    this.#partialLength = length;
  }

  /** The line that spanned reads has ended: dispatch it, or stop skipping. */
  #endPartial(): void {
    if (this.#isSkipping) {
      this.#isSkipping = false;
      return;
    }
    const line = this.#decoder.decode(this.#partial.subarray(0, this.#partialLength));
    this.#partialLength = 0;
    this.#dispatch(line);
  }

  #refuseLong(): void {
    this.onerror?.(
      new RpcError(
        RpcErrorCode.INVALID_REQUEST,
        `Request line too long: over ${this.#maxLineBytes} bytes`,
      ),
    );
  }

  #dispatch(line: string): void {
    if (line.length === 0 || (line.charCodeAt(0) <= 0x20 && line.trim() === "")) return;
    if (line.length > 2 * this.#maxDepth + 1 && isNestedDeeper(line, this.#maxDepth)) {
      this.onerror?.(
        new RpcError(
          RpcErrorCode.INVALID_REQUEST,
          `Request nested too deep: over ${this.#maxDepth} levels of arrays and objects`,
        ),
      );
      return;
    }
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
    // The read side ended; writes stay possible until close(), so the player
    // can still answer what it read before the end.
    if (this.#hasFinished) return;
    this.#hasFinished = true;
    this.#partial = new Uint8Array(0);
    this.#partialLength = 0;
    this.onclose?.();
  }
}

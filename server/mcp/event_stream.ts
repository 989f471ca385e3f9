/**
 * A budget for MCP's event streams (`GET /mcp`, and POST answers sent as
 * SSE). The SDK writes each server message into its stream's queue whether
 * or not the client reads (`controller.enqueue` ignores backpressure), so a
 * client that opened its stream and never read made the service hold every
 * notification since: 30 such sessions during 1,500 edits took the service
 * from 145 to 638 MB. And a stream the SDK closed (its session ended,
 * deleted, expired or evicted) kept its queue until the client read it, that
 * is, forever.
 *
 * Here the SDK's stream is read at once, so its queue stays empty, into a
 * queue of our own that the HTTP engine takes from as it sends: its bytes
 * are the unsent ones. The session's notifications are written to it
 * directly (`push`), without the SDK's per-message work. Past
 * `maxBufferedBytes` (one message alone may be larger) the stream is
 * ended, as a WebSocket client that does not read is closed
 * (`docs/security.md`): its queue is dropped, and the SDK's side is
 * cancelled, so the session stops writing to it and its client may open
 * the stream again. When the SDK ends a stream, what its client has not
 * taken within `closeGraceMs` is dropped the same way.
 * @module
 */

/** The budget of one stream. */
export interface EventStreamLimits {
  /** Unsent bytes a stream may hold; past them it is ended. */
  maxBufferedBytes: number;
  /** After the SDK ends a stream, how long its client has to take what is left, ms (default 1000). */
  closeGraceMs?: number;
  /** Called once when the stream is ended for its budget, with the bytes it held. */
  onOverflow?: (bytes: number) => void;
  /** Called once when the stream is over: ended and taken, dropped, or cancelled. */
  onEnd?: () => void;
  /** The grace's timer (tests pass their own, to pass the grace when they say): real by default. */
  timers?: GraceTimers;
}

/** Starts and cancels the grace's timer. */
export interface GraceTimers {
  /** Calls `fn` after `ms`; answers what `clear` takes. */
  set(fn: () => void, ms: number): unknown;
  /** Cancels a timer `set` answered (one that fired, or undefined, is ignored). */
  clear(timer: unknown): void;
}

const REAL_TIMERS: GraceTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (timer) => clearTimeout(timer as number | undefined),
};

/** Why a stream was ended: its client does not read (one line in the log, no stack). */
export class NotReadingError extends Error {
  /** Builds the error. */
  constructor(message: string) {
    super(message);
    this.name = "NotReadingError";
    this.stack = message; // the log shows `stack`: the message says it all
  }
}

/** A bounded stream: the body to answer with, what it holds, and how to write to it or end it. */
export interface BoundedEventStream {
  readable: ReadableStream<Uint8Array>;
  /** Bytes queued that the HTTP engine has not taken. */
  readonly unsent: number;
  /** Whether messages may still be written. */
  readonly isOpen: boolean;
  /** Queues bytes (whole SSE events) after what is queued; false once the stream is over. */
  push(bytes: Uint8Array): boolean;
  /** Drops what it holds and ends it (the service stops). */
  drop(): void;
}

/**
 * `source` (an SDK event stream) under a budget of unsent bytes.
 * @example
 * ```ts
 * const { readable } = boundEventStream(response.body!, { maxBufferedBytes: 1024 * 1024 });
 * return new Response(readable, { status: response.status, headers: response.headers });
 * ```
 */
export function boundEventStream(
  source: ReadableStream<Uint8Array>,
  limits: EventStreamLimits,
): BoundedEventStream {
  return new BoundedStream(source, limits);
}

/** One bounded stream (`boundEventStream`): the source read at once into its queue. */
class BoundedStream implements BoundedEventStream {
  readonly readable: ReadableStream<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #limits: EventStreamLimits;
  #queue: Uint8Array[] = [];
  #unsent = 0;
  /** The source ended: the stream ends once the queue is taken. */
  #isSourceDone = false;
  #isOver = false;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  /** A read of the HTTP engine waiting for bytes. */
  #waiting: (() => void) | null = null;
  #timer: unknown;

  constructor(source: ReadableStream<Uint8Array>, limits: EventStreamLimits) {
    this.#reader = source.getReader();
    this.#limits = limits;
    this.readable = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.#controller = c;
      },
      pull: (c) => this.#pull(c),
      cancel: (reason) => {
        // The client went away (or the HTTP engine gave up): the SDK stops writing to it.
        this.#end();
        this.#wake();
        return this.#reader.cancel(reason).catch(() => {});
      },
    }, { highWaterMark: 0 });
    void this.#readSource();
  }

  get unsent(): number {
    return this.#unsent;
  }

  get isOpen(): boolean {
    return !this.#isOver && !this.#isSourceDone;
  }

  push(bytes: Uint8Array): boolean {
    if (this.#isOver || this.#isSourceDone) return false;
    this.#queue.push(bytes);
    this.#unsent += bytes.byteLength;
    const unsent = this.#unsent;
    // One message alone may pass the budget; messages piling up may not.
    if (unsent > this.#limits.maxBufferedBytes && unsent > bytes.byteLength) {
      this.#limits.onOverflow?.(unsent);
      this.#drop(
        `MCP event stream closed, its client does not read: ${unsent} bytes unsent, at most ${this.#limits.maxBufferedBytes}`,
        { isError: true },
      );
      return false;
    }
    this.#wake();
    return true;
  }

  drop(): void {
    this.#drop("The service is stopping", { isError: false });
  }

  #wake(): void {
    const resolve = this.#waiting;
    this.#waiting = null;
    resolve?.();
  }

  /** Marks the stream over and lets go of its queue; false if it was over already. */
  #end(): boolean {
    if (this.#isOver) return false;
    this.#isOver = true;
    (this.#limits.timers ?? REAL_TIMERS).clear(this.#timer);
    this.#queue.length = 0;
    this.#unsent = 0;
    this.#limits.onEnd?.();
    return true;
  }

  /**
   * Drops what is queued, ends the body where it stands, and cancels the
   * SDK's side. For a client that does not read, the body fails (`error`):
   * the service logs one line, and its connection is closed at once
   * (`ConnectionServer`), even if the client never reads again.
   */
  #drop(reason: string, options: { isError: boolean }): void {
    if (!this.#end()) return;
    try {
      if (options.isError) this.#controller.error(new NotReadingError(reason));
      else this.#controller.close();
    } catch {
      // already closed
    }
    this.#wake();
    this.#reader.cancel(reason).catch(() => {});
  }

  /** The HTTP engine's read: the next chunk queued, once there is one. */
  async #pull(c: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    while (this.#queue.length === 0 && !this.#isSourceDone && !this.#isOver) {
      await new Promise<void>((resolve) => (this.#waiting = resolve));
    }
    if (this.#isOver) return;
    const chunk = this.#queue.shift();
    if (chunk) {
      this.#unsent -= chunk.byteLength;
      c.enqueue(chunk);
    }
    if (this.#queue.length === 0 && this.#isSourceDone) {
      c.close();
      this.#end();
    }
  }

  /** Reads the SDK's stream at once into the queue, to its end. */
  async #readSource(): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await this.#reader.read();
        if (this.#isOver) return;
        if (done) break;
        if (!this.push(value)) return;
      }
      this.#isSourceDone = true;
      this.#wake();
      if (this.#queue.length === 0) return;
      // Ended with bytes left: the client has a moment to take them, then they are dropped.
      this.#timer = (this.#limits.timers ?? REAL_TIMERS).set(
        () =>
          this.#drop(
            `MCP event stream of an ended session closed, its client does not read: ${this.#unsent} bytes unsent`,
            { isError: true },
          ),
        this.#limits.closeGraceMs ?? 1000,
      );
    } catch {
      this.#drop("The SDK's stream failed", { isError: false });
    }
  }
}

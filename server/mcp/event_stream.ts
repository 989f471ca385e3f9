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
 * stream of our own whose queue is what the HTTP engine has not taken yet:
 * the unsent bytes. Past `maxBufferedBytes` (one message alone may be
 * larger), the stream is closed, as a WebSocket client that does not read
 * is (`docs/security.md`): its queue is dropped, and the SDK's side is
 * cancelled, so the session stops writing to it and its client may open
 * the stream again. When the SDK ends a stream, what its client has not
 * taken within `closeGraceMs` is dropped the same way.
 * @module
 */

/** The budget of one stream. */
export interface EventStreamLimits {
  /** Unsent bytes a stream may hold; past them it is closed. */
  maxBufferedBytes: number;
  /** After the SDK ends a stream, how long its client has to take what is left, ms (default 1000). */
  closeGraceMs?: number;
  /** Called once when the stream is closed for its budget, with the bytes it held. */
  onOverflow?: (bytes: number) => void;
  /** Called once when the stream is over: ended and taken, dropped, or cancelled. */
  onEnd?: () => void;
}

/** A bounded stream: the body to answer with, and how to end it at once. */
export interface BoundedEventStream {
  readable: ReadableStream<Uint8Array>;
  /** Drops what it holds and ends it (the service stops). */
  drop(): void;
}

/** Why a stream was closed: its client does not read. */
export class NotReadingError extends Error {
  /** Builds the error. */
  constructor(bytes: number, limit: number) {
    super(`Too slow: not reading its messages (${bytes} bytes unsent, at most ${limit})`);
    this.name = "NotReadingError";
  }
}

/** Counts each chunk by its bytes, so `desiredSize` is minus the unsent bytes. */
const BY_BYTES: QueuingStrategy<Uint8Array> = { highWaterMark: 0, size: (c) => c.byteLength };

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
  const reader = source.getReader();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let isOver = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const unsent = () => -(controller.desiredSize ?? 0);
  const end = () => {
    if (isOver) return false;
    isOver = true;
    clearTimeout(timer);
    limits.onEnd?.();
    return true;
  };
  /** Drops what is queued and ends both sides. */
  const drop = (error: Error) => {
    if (!end()) return;
    try {
      controller.error(error);
    } catch {
      // already closed and drained
    }
    reader.cancel(error).catch(() => {});
  };
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel(reason) {
      // The client went away (or the HTTP engine gave up): the SDK stops writing to it.
      end();
      return reader.cancel(reason).catch(() => {});
    },
  }, BY_BYTES);
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (isOver) return;
        if (done) break;
        controller.enqueue(value);
        const bytes = unsent();
        // One message alone may pass the budget; messages piling up may not.
        if (bytes > limits.maxBufferedBytes && bytes > value.byteLength) {
          limits.onOverflow?.(bytes);
          return drop(new NotReadingError(bytes, limits.maxBufferedBytes));
        }
      }
      controller.close();
      if (unsent() <= 0) return void end();
      // Closed with bytes left: the client has a moment to take them, then they are dropped.
      timer = setTimeout(() => {
        if (unsent() > 0) drop(new NotReadingError(unsent(), 0));
        else end();
      }, limits.closeGraceMs ?? 1000);
    } catch (error) {
      drop(error instanceof Error ? error : new Error(String(error)));
    }
  })();
  return {
    readable: stream,
    drop: () => drop(new Error("The service is stopping")),
  };
}

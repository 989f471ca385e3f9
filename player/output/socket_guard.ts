/**
 * The bounds of a page's socket (`protocol/socket_bounds.ts`) applied to each message as it
 * comes: its size, then a token bucket of messages and one of bytes, so a page that floods is
 * closed however it floods (many small messages, or few large ones). The schema is checked by
 * the socket's handler (`page_socket.ts`, `editor_page.ts`): a message past these bounds is
 * never parsed.
 * @module
 */
import type { z } from "zod";
import { CLOSE_POLICY, CLOSE_TOO_BIG, type SocketBounds } from "../../protocol/socket_bounds.ts";

/** Why a page's socket is closed: the WebSocket code, the kind counted, what it sent. */
export interface Violation {
  code: typeof CLOSE_POLICY | typeof CLOSE_TOO_BIG;
  kind: "too large" | "too fast" | "not valid";
  reason: string;
}

/** A bucket that holds `capacity` tokens and gains `perSecond` a second, to its capacity. */
class TokenBucket {
  readonly #capacity: number;
  readonly #perMs: number;
  #tokens: number;
  #at: number;

  constructor(capacity: number, perSecond: number, now: number) {
    this.#capacity = capacity;
    this.#perMs = perSecond / 1000;
    this.#tokens = capacity;
    this.#at = now;
  }

  /** Takes `count` tokens; false (and none taken) when there are not that many. */
  take(count: number, now: number): boolean {
    this.#tokens = Math.min(this.#capacity, this.#tokens + (now - this.#at) * this.#perMs);
    this.#at = now;
    if (this.#tokens < count) return false;
    this.#tokens -= count;
    return true;
  }
}

/** One socket's bounds, applied in the order its messages come. */
export class MessageGuard {
  readonly #bounds: SocketBounds;
  readonly #now: () => number;
  readonly #messages: TokenBucket;
  readonly #bytes: TokenBucket;

  /** `now`: monotonic ms (performance.now; tests give a virtual clock). */
  constructor(bounds: SocketBounds, now: () => number) {
    this.#bounds = bounds;
    this.#now = now;
    this.#messages = new TokenBucket(bounds.burstMessages, bounds.messagesPerSecond, now());
    this.#bytes = new TokenBucket(bounds.burstBytes, bounds.bytesPerSecond, now());
  }

  /** Null when `data` may be handled; otherwise why the socket must close. */
  check(data: unknown): Violation | null {
    const isText = typeof data === "string";
    const size = isText ? data.length : data instanceof ArrayBuffer ? data.byteLength : -1;
    if (size < 0) {
      return { code: CLOSE_POLICY, kind: "not valid", reason: "a message of no known type" };
    }
    const max = isText ? this.#bounds.maxTextChars : this.#bounds.maxBinaryBytes;
    if (size > max) {
      const what = isText
        ? `a text message of ${size} characters`
        : `a binary message of ${size} bytes`;
      return { code: CLOSE_TOO_BIG, kind: "too large", reason: `${what} (at most ${max})` };
    }
    const now = this.#now();
    // Both buckets are asked: a message refused by one takes nothing from the other that matters,
    // since the socket closes.
    if (!this.#messages.take(1, now)) {
      return {
        code: CLOSE_POLICY,
        kind: "too fast",
        reason:
          `more than ${this.#bounds.burstMessages} messages at once (${this.#bounds.messagesPerSecond} a second sustained)`,
      };
    }
    if (!this.#bytes.take(size, now)) {
      return {
        code: CLOSE_POLICY,
        kind: "too fast",
        reason:
          `more than ${this.#bounds.burstBytes} bytes at once (${this.#bounds.bytesPerSecond} a second sustained)`,
      };
    }
    return null;
  }
}

/**
 * `data` (a text message within bounds) as a message of `schema`, or why the socket must
 * close: not JSON, or not of the schema (`what` names the messages expected, and the first
 * problem's field is said).
 */
export function parseMessage<T>(
  schema: z.ZodType<T>,
  data: string,
  what: string,
): { message: T } | { violation: Violation } {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return { violation: notValid("a text message that is not JSON") };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { message: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    violation: notValid(`not ${what} (${issue?.path.join(".") || "message"}: ${issue?.message})`),
  };
}

function notValid(reason: string): Violation {
  return { code: CLOSE_POLICY, kind: "not valid", reason };
}

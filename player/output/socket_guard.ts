/**
 * A page's socket, one page at a time (`OnePageSocket`, the output's and the editor's), with the
 * bounds of its socket (`protocol/socket_bounds.ts`) applied to each message as it comes: its
 * size, then a token bucket of messages and one of bytes, so a page that floods is closed
 * however it floods (many small messages, or few large ones), then its schema (`parseMessage`,
 * with the schema of the socket's handlers: `page_socket.ts`, `editor_page.ts`): a message past
 * these bounds is never parsed.
 * @module
 */
import type { z } from "zod";
import { CLOSE_POLICY, CLOSE_TOO_BIG, type SocketBounds } from "../../protocol/socket_bounds.ts";
import type { SocketFaultLog } from "./socket_log.ts";

/** Why a page's socket is closed: the WebSocket code, the kind counted, what it sent. */
export interface Violation {
  /** The close code. */
  code: typeof CLOSE_POLICY | typeof CLOSE_TOO_BIG;
  /** The kind the socket-fault log counts it as. */
  kind: "too large" | "too fast" | "not valid";
  /** What the page sent, for the log line. */
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

/** Hands `data` (within bounds) to `handlers`; what is wrong with it, or null. */
function handle<T>(handlers: PageHandlers<T>, data: string | ArrayBuffer): Violation | null {
  if (data instanceof ArrayBuffer) {
    if (!handlers.binary) return notValid("a binary message");
    handlers.binary(data);
    return null;
  }
  const parsed = parseMessage(handlers.schema, data, handlers.what);
  if ("violation" in parsed) return parsed.violation;
  handlers.dispatch(parsed.message);
  return null;
}

/** A violation of the schema: closed with `CLOSE_POLICY`. */
function notValid(reason: string): Violation {
  return { code: CLOSE_POLICY, kind: "not valid", reason };
}

/** What a page's socket does with its page, once it is the one connected (`OnePageSocket`). */
export interface PageHandlers<T> {
  /** Names the socket in the fault's line (`the output page's socket #2`). */
  name: string;
  /** The schema of the page's text messages. */
  schema: z.ZodType<T>;
  /** Names the messages of `schema` in the fault's line (`a page message`). */
  what: string;
  /** The socket opened. */
  opened(): void;
  /** Any message came, before it is checked (a sign of life). */
  received?(): void;
  /** A text message within bounds and of `schema`. */
  dispatch(message: T): void;
  /** A binary message within bounds (absent: the socket takes none, the page is closed). */
  binary?(data: ArrayBuffer): void;
  /** The socket closed while it was the one connected: its close code and reason. */
  closed?(how: SocketClose): void;
}

/** How a page's socket closed: the WebSocket close code and reason (1006: no close frame). */
export interface SocketClose {
  code: number;
  reason: string;
  /** This side closed it for a fault (`Violation`): the socket-fault log counted it already. */
  isFault: boolean;
}

/** How a page is told another has the socket: its close code, reason, and the fault's line. */
export interface Taken {
  /** The close code (`PAGE_TAKEN`, `EDITOR_TAKEN`). */
  code: number;
  /** The close reason the page is given. */
  reason: string;
  /** The socket-fault log's words for it. */
  what: string;
}

/**
 * One page's socket at a time, each of its messages within `bounds` (`MessageGuard`) and then
 * handled, or the page closed and the fault counted. A second page is refused at the upgrade
 * (`server.ts`, `isTaken`); one that upgrades at the same time as the first is closed with
 * `taken`'s code once open, and the first keeps the socket.
 */
export class OnePageSocket {
  readonly #bounds: SocketBounds;
  readonly #now: () => number;
  readonly #faults: SocketFaultLog | null;
  readonly #taken: Taken;
  #socket: WebSocket | null = null;

  /** `now`: monotonic ms (the rate bound's); `faults` counts the pages closed. */
  constructor(
    options: {
      bounds: SocketBounds;
      now: () => number;
      faults: SocketFaultLog | null;
      taken: Taken;
    },
  ) {
    this.#bounds = options.bounds;
    this.#now = options.now;
    this.#faults = options.faults;
    this.#taken = options.taken;
  }

  /** Whether a page has the socket (connecting or connected): another is refused. */
  get isTaken(): boolean {
    return !!this.#socket && this.#socket.readyState <= WebSocket.OPEN;
  }

  /** Whether a page is connected. */
  get isOpen(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  /**
   * `socket` is the page's, with the handlers `start` makes (asked only then), unless a page
   * has it already: then `socket` is closed once open, and false returned.
   */
  accept<T>(socket: WebSocket, start: () => PageHandlers<T>): boolean {
    if (this.isTaken) {
      const { code, reason, what } = this.#taken;
      socket.onopen = () => socket.close(code, reason);
      this.#faults?.note("second page", what);
      return false;
    }
    this.#socket = socket;
    const handlers = start();
    const guard = new MessageGuard(this.#bounds, this.#now);
    let isClosing = false;
    socket.onopen = () => handlers.opened();
    socket.onmessage = (event) => {
      if (isClosing) return;
      handlers.received?.();
      const violation = guard.check(event.data) ?? handle(handlers, event.data);
      if (!violation) return;
      isClosing = true;
      this.#faults?.note(violation.kind, `${handlers.name}: ${violation.reason}`);
      socket.close(violation.code, violation.kind);
    };
    // A stand-in socket may close with no event: as one gone without a close frame (1006).
    socket.onclose = (event?: CloseEvent) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      const { code = 1006, reason = "" } = event ?? {};
      handlers.closed?.({ code, reason, isFault: isClosing });
    };
    return true;
  }

  /** Sends `message` (as JSON) to the page connected, if any. */
  send(message: unknown): void {
    if (this.isOpen) this.#socket!.send(JSON.stringify(message));
  }

  /** Closes the page's socket, if any (with `code` and `reason` when given). */
  close(code?: number, reason?: string): void {
    this.#socket?.close(code, reason);
    this.#socket = null;
  }
}

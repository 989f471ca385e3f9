/**
 * One WebSocket connection and its budget: the greeting, its rate limit, its
 * budget of unsent bytes, and delivery of state updates with its own sequence
 * numbers and lag handling. Its parts: `session.ts` (the auth gate and its
 * deadline, the filter, what a message runs), `reading.ts` (a frame to a
 * checked message), `dispatch.ts` (what a message runs), `outgoing.ts`
 * (unsent bytes), `held.ts` (messages kept unread), `answer_queue.ts`
 * (answers in message order).
 * @module
 */
import type { StateUpdate } from "../../protocol/state.ts";
import type { Authenticator } from "../auth/mod.ts";
import type { Policy } from "../core/mod.ts";
import type { RateMeter } from "../auth/rate_limit.ts";
import {
  type Core,
  type CueportError,
  snapshotView,
  unexpectedOf,
  type UpdateBatch,
} from "../core/mod.ts";
import { ServerWebSocket } from "../net/mod.ts";
import type { WsDialect } from "../net/dialect.ts";
import { type CloseReason, CloseReasons } from "./messages.ts";
import { v6Dialect } from "./dialect.ts";
import { Outgoing } from "./outgoing.ts";
import { readMessage } from "./reading.ts";
import { HeldMessages } from "./held.ts";
import { AnswerQueue } from "./answer_queue.ts";
import { ClientSession } from "./session.ts";

export { socketOperations } from "./dispatch.ts";

/** Per-client limits (settings; see docs/websocket.md). */
export interface SocketLimits {
  maxMessageBytes: number;
  /**
   * The budget of an authenticated client, bytes: what it was sent and the
   * network has not taken yet, plus the answers it is owed. Over it, state
   * updates are skipped (then resynced), answers wait, and its messages wait
   * unread; once the messages waiting pass this much too, it is closed.
   */
  maxBufferedBytes: number;
  /** A client over its budget (or lagging) this long is closed. */
  lagCloseMs: number;
  /** A client that has not authenticated this long after connecting is closed. */
  authTimeoutMs: number;
  /** The budget before authentication; over it the client is closed at once. */
  unauthenticatedMaxBufferedBytes: number;
}

/** The batch being delivered, with its payload serialized and encoded at most once. */
export interface SharedBatch {
  batch: UpdateBatch;
  /** The updates as the dialect sends them; null when it sends none of them. */
  payloadJson(): string | null;
  /** `payloadJson()` and the event's end (`eventSuffix`), UTF-8: the tail every client is sent. */
  payloadBytes(): Uint8Array;
}

const encoder = new TextEncoder();

/**
 * What an answer owed to a message is counted as before it is sent, beyond the
 * message's own length: about the size of an error or a small response.
 */
const ANSWER_BYTES = 128;

/** What a `SocketClient` is built with. */
export interface SocketClientOptions {
  id: string;
  address: string;
  core: Core;
  auth: Authenticator;
  /** Decides what this client may run, once it has authenticated. */
  policy: Policy;
  /** The service's rate limit, as this transport takes from it (never called for local clients). */
  rateLimit: RateMeter;
  limits: SocketLimits;
  version: string;
  /** Asks the server's sweep to call `sweep()` until it returns false. */
  watch: () => void;
  /** Called once when the connection is closed, by either side. */
  forget: () => void;
  /** Where closes for a limit are reported. */
  log?: ((message: string) => void) | undefined;
  /** Where the faults of the operations it runs are logged (`unexpectedOf`). */
  logFault?: ((message: string) => void) | undefined;
  /** The interface version it speaks; default 6.0. */
  dialect?: WsDialect | undefined;
}

/**
 * A connected client.
 *
 * Its budget: every message sent to it (greeting, answers, snapshots, state
 * updates) counts while it is unsent (`ws.bufferedAmount`, plus `FRAME_BYTES`
 * a message), and so does each answer it is owed (its message's length plus
 * `ANSWER_BYTES`). Over the budget, state updates are skipped (it lags, and
 * is resynced with a `full` once drained), answers wait in order, and new
 * messages wait unread: they are neither parsed nor run. A client whose
 * waiting messages pass the budget too, or that stays over it for
 * `lagCloseMs`, is closed: memory per client stays under twice the budget
 * plus the largest single message. Before authentication the budget is small
 * and nothing waits: over it the client is closed at once. Who it is and what
 * it hears is its session's (`ClientSession`).
 */
export class SocketClient {
  readonly id: string;
  readonly address: string;
  #ws: ServerWebSocket;
  #core: Core;
  #limits: SocketLimits;
  #watch: () => void;
  #forget: () => void;
  #log: ((message: string) => void) | undefined;
  #logFault: ((message: string) => void) | undefined;
  /** Who it is (its auth and deadline), what it hears, how its messages run. */
  #session: ClientSession;
  #seq = 0;
  /** Null for a local client: it is never limited. */
  #rateLimit: RateMeter;
  #lagSince: number | null = null;
  /** Answers owed, in message order, counted as their messages' length plus `ANSWER_BYTES` each. */
  #answers = new AnswerQueue({
    hasRoom: () => this.#unsent() <= this.#budget(),
    onWait: () => {
      this.#waitingSince ??= performance.now();
      this.#watch();
    },
  });
  /** Messages that came while over budget, kept unread. */
  #held = new HeldMessages();
  /** Since when an answer or a message has been waiting for room; null while none waits. */
  #waitingSince: number | null = null;
  #isClosing = false;
  /** What its socket holds unsent. */
  #out: Outgoing;
  #dialect: WsDialect;

  /** Wraps an upgraded socket; sends the greeting once it opens and starts the auth deadline. */
  constructor(ws: ServerWebSocket, options: SocketClientOptions) {
    this.#ws = ws;
    this.#out = new Outgoing(ws);
    this.id = options.id;
    this.address = options.address;
    this.#core = options.core;
    this.#limits = options.limits;
    this.#watch = options.watch;
    this.#forget = options.forget;
    this.#log = options.log;
    this.#logFault = options.logFault;
    this.#rateLimit = options.rateLimit; // a local client is not metered (rate_limit.ts)
    this.#dialect = options.dialect ?? v6Dialect(options.version);
    this.#session = new ClientSession({
      address: options.address,
      core: options.core,
      auth: options.auth,
      policy: options.policy,
      dialect: this.#dialect,
      authTimeoutMs: options.limits.authTimeoutMs,
      sendFull: (event) => {
        this.#sendFull(event);
        return this.#seq;
      },
      onAuthTimeout: () => this.#closeFor(CloseReasons.authTimeout),
      isClosing: () => this.#isClosing,
    });
    ws.onopen = () => {
      const greeting = this.#dialect.greeting(this.id);
      if (greeting !== null) this.#send(greeting);
    };
    ws.onmessage = (event) => this.#onMessage(event.data, event.size);
    ws.onclose = () => this.#dispose();
  }

  /** The paired device behind this connection, if any. */
  get deviceId(): string | null {
    return this.#session.deviceId;
  }

  /** Whether this client has fallen behind and waits for a resync. */
  get isLagging(): boolean {
    return this.#lagSince !== null;
  }

  /** Whether answers or messages of this client wait for it to read what it was sent. */
  get isWaiting(): boolean {
    return this.#waitingSince !== null;
  }

  /** Closes the connection with a code and reason; nothing more is read or sent. */
  close(code: number, reason: string): void {
    this.#dispose();
    try {
      this.#ws.close(code, reason);
    } catch {
      // already closing
    }
  }

  /** Delivers one bus batch: filtered, numbered, skipped while lagging. */
  deliver(shared: SharedBatch): void {
    const session = this.#session;
    if (!session.isAuthenticated || this.#ws.readyState !== ServerWebSocket.OPEN) return;
    const updates = session.select(shared.batch.updates);
    if (updates.length === 0) return;
    const json = session.isFiltered ? this.#dialect.updatesJson(updates) : shared.payloadJson();
    if (json === null) return; // the dialect sends none of them
    this.#seq++; // counted even when skipped, so the client sees the gap
    if (
      this.#lagSince !== null ||
      this.#unsent() + this.#answers.owedBytes > this.#limits.maxBufferedBytes
    ) {
      this.#lagSince ??= performance.now();
      this.#checkLag(performance.now());
      this.#watch();
      return;
    }
    const prefix = this.#dialect.eventPrefix(this.#seq);
    if (session.isFiltered) return this.#send(prefix + json + this.#dialect.eventSuffix);
    // Unfiltered, the payload's bytes are those of every other client: only the seq is this one's.
    this.#out.sendParts(
      [encoder.encode(prefix), shared.payloadBytes()],
      prefix.length + json.length + this.#dialect.eventSuffix.length,
    );
  }

  /**
   * The server's sweep, while this client lags or waits: lets waiting answers
   * and messages go once there is room, resyncs a drained lagging client, and
   * closes one stuck for `lagCloseMs`.
   * @returns whether to keep sweeping this client
   */
  sweep(): boolean {
    if (this.#isClosing) return false;
    const now = performance.now();
    if (this.#waitingSince !== null) {
      if (this.#unsent() <= this.#budget()) {
        this.#answers.wake();
        this.#release();
      }
      if (!this.#answers.isWaiting && this.#held.isEmpty) {
        this.#waitingSince = null;
      } else if (now - this.#waitingSince > this.#limits.lagCloseMs) {
        this.#closeFor(CloseReasons.notReading);
        return false;
      }
    }
    this.#checkLag(now);
    return !this.#isClosing && (this.#lagSince !== null || this.#waitingSince !== null);
  }

  /** For a lagging client: resync once drained, close once stuck too long. */
  #checkLag(now: number): void {
    if (this.#lagSince === null) return;
    if (this.#unsent() <= this.#limits.maxBufferedBytes / 4) {
      this.#lagSince = null;
      this.#sendFull("resync");
    } else if (now - this.#lagSince > this.#limits.lagCloseMs) {
      this.#closeFor(this.#waitingSince !== null ? CloseReasons.notReading : CloseReasons.lagging);
    }
  }

  #sendFull(event: string): void {
    const full: StateUpdate = {
      updateType: "full",
      projectId: null,
      data: { event, state: snapshotView(this.#core.model) },
    };
    const d = this.#dialect;
    this.#send(d.eventPrefix(++this.#seq) + (d.updatesJson([full]) ?? "[]") + d.eventSuffix);
  }

  /** The budget of unsent bytes: small until the client has authenticated. */
  #budget(): number {
    return this.#session.isAuthenticated
      ? this.#limits.maxBufferedBytes
      : this.#limits.unauthenticatedMaxBufferedBytes;
  }

  /** Queues an answer (owed `cost`) behind the answers to earlier messages. */
  #reply(cost: number, text: string): void {
    this.#answers.push(cost, (paid) => {
      paid();
      this.#send(text);
    });
  }

  #send(text: string): void {
    this.#out.send(text);
  }

  /** Unsent bytes as the budget counts them (`Outgoing.unsent`). */
  #unsent(): number {
    return this.#out.unsent();
  }

  /** Closes for a limit, and says so in the log. */
  #closeFor({ code, reason }: CloseReason): void {
    if (this.#isClosing) return;
    this.#log?.(`WebSocket client ${this.id} (${this.address}) closed: ${code} ${reason}`);
    this.close(code, reason);
  }

  /** Stops everything of this client: timers, waiting answers, held messages. */
  #dispose(): void {
    if (!this.#isClosing) this.#forget();
    this.#isClosing = true;
    this.#session.stop();
    this.#held.clear();
    this.#waitingSince = null;
    this.#lagSince = null;
    this.#answers.wake();
  }

  /** The refusal when this client is over its address's budget, else null. */
  #rateRefusal(): CueportError | null {
    try {
      this.#rateLimit.take(this.address);
      return null;
    } catch (error) {
      return error as CueportError;
    }
  }

  /** `size` is the message's length in bytes, as it came over the network. */
  #onMessage(data: unknown, size: number): void {
    if (this.#isClosing) return;
    if (!this.#session.isAuthenticated && size > this.#limits.maxMessageBytes) {
      return this.#closeFor(CloseReasons.tooBig);
    }
    const cost = size + ANSWER_BYTES;
    if (!this.#held.isEmpty || this.#unsent() + this.#answers.owedBytes > this.#budget()) {
      return this.#hold(data, cost);
    }
    this.#read(data, cost);
  }

  /**
   * A message while over budget: kept unread. Before authentication, or once
   * the messages waiting for answers pass the budget too, the client is closed.
   */
  #hold(data: unknown, cost: number): void {
    if (!this.#session.isAuthenticated) return this.#closeFor(CloseReasons.notReading);
    this.#held.push(data, cost);
    if (this.#answers.owedBytes + this.#held.bytes > this.#limits.maxBufferedBytes) {
      return this.#closeFor(CloseReasons.notReading);
    }
    this.#waitingSince ??= performance.now();
    this.#release(); // room may have come since the last sweep
    this.#watch();
  }

  /** Reads held messages, in order, while there is room. */
  #release(): void {
    const budget = this.#budget();
    while (
      !this.#held.isEmpty && !this.#isClosing && this.#unsent() + this.#answers.owedBytes <= budget
    ) {
      const { data, cost } = this.#held.shift();
      this.#read(data, cost);
    }
  }

  /** Parses, checks and runs one message; its answer (owed `cost`) goes out in order. */
  #read(data: unknown, cost: number): void {
    const read = readMessage(data, cost - ANSWER_BYTES, {
      dialect: this.#dialect,
      maxMessageBytes: this.#limits.maxMessageBytes,
      rateRefusal: () => this.#rateRefusal(),
    });
    if ("refusal" in read) return this.#reply(cost, read.refusal);
    const { id, message } = read;
    // Actions of an authenticated client go to the player at once (a fader stream stays
    // pipelined); everything else runs after the messages before it, so a query sees
    // the actions sent ahead of it. Either way, answers go out in message order, and
    // only while the client has room: over its budget they wait for it to read.
    const session = this.#session;
    const early = session.isAuthenticated && message.type === "action"
      ? session.outcome(message)
      : null;
    this.#answers.push(cost, async (paid) => {
      const outcome = this.#isClosing ? null : await (early ?? session.outcome(message));
      paid();
      if (outcome?.isFailed) {
        const fault = unexpectedOf(outcome.error);
        if (fault) this.#logFault?.(`WebSocket ${message.type} of client ${this.id}: ${fault}`);
        this.#send(this.#dialect.error(id, outcome.error, message.type));
      } else if (outcome) {
        this.#send(this.#dialect.answer(id, message.type, outcome.data, this.id));
      }
      const reason = session.closeReason;
      if (reason) this.#closeFor(reason);
    });
  }
}

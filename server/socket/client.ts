/**
 * One WebSocket connection: the greeting, the auth gate and its deadline,
 * its filters, its rate limit, its budget of unsent bytes, and delivery of
 * state updates with its own sequence numbers and lag handling. Its parts:
 * `reading.ts` (a frame to a checked message), `dispatch.ts` (what a message
 * runs), `outgoing.ts` (unsent bytes), `held.ts` (messages kept unread),
 * `answer_queue.ts` (answers in message order).
 * @module
 */
import type { StateUpdate } from "../../protocol/state.ts";
import { type Authenticator, type Grant, isLocalAddress } from "../auth/mod.ts";
import type {
  Caller,
  ConnectInput,
  InvokeContext,
  InvokeOptions,
  Policy,
  SessionService,
} from "../core/mod.ts";
import type { RateMeter } from "../auth/rate_limit.ts";
import {
  type AnyOperation,
  type Core,
  CueportError,
  snapshotView,
  unexpectedOf,
  type UpdateBatch,
} from "../core/mod.ts";
import { ServerWebSocket } from "../net/mod.ts";
import type { WsDialect } from "../net/dialect.ts";
import { type ClientMessage, type CloseReason, CloseReasons } from "./messages.ts";
import { v6Dialect } from "./dialect.ts";
import { Outgoing } from "./outgoing.ts";
import { readMessage } from "./reading.ts";
import { HeldMessages } from "./held.ts";
import { AnswerQueue } from "./answer_queue.ts";
import { CONNECT, dispatch, type Runner } from "./dispatch.ts";

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

type Filter = { updateTypes?: Set<string>; projectIds?: Set<string>; positions: boolean };

/** What a message came to: its data, or what it threw (whatever that is, falsy included). */
type Outcome = { isFailed: false; data: unknown } | { isFailed: true; error: unknown };

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
 * and nothing waits: over it the client is closed at once.
 */
export class SocketClient {
  readonly id: string;
  readonly address: string;
  #ws: ServerWebSocket;
  #core: Core;
  #auth: Authenticator;
  #limits: SocketLimits;
  #watch: () => void;
  #forget: () => void;
  #log: ((message: string) => void) | undefined;
  #logFault: ((message: string) => void) | undefined;
  #isAuthenticated = false;
  /** The paired device behind this connection, if any. */
  deviceId: string | null = null;
  /** Who this client is, for the policy; its grant once authenticated. */
  #caller: Caller;
  #policy: Policy;
  /** What its operations run with. */
  /** What the connection's operations get besides the core and the caller. */
  #context: InvokeContext;
  /** The caller before it authenticated: no grant yet (`connect` needs none). */
  #connecting: Caller;
  #seq = 0;
  #filter: Filter | null = null;
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
  #authTimer: ReturnType<typeof setTimeout> | undefined;
  #authsRunning = 0;
  /** The deadline passed while an auth was being decided: close unless it succeeds. */
  #isAuthOverdue = false;
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
    this.#auth = options.auth;
    this.#policy = options.policy;
    const isLocal = isLocalAddress(options.address);
    this.#caller = { address: options.address, isLocal, grant: { device: "", scopes: [] } };
    this.#connecting = { address: options.address, isLocal };
    this.#context = { session: this.#session };
    this.#limits = options.limits;
    this.#watch = options.watch;
    this.#forget = options.forget;
    this.#log = options.log;
    this.#logFault = options.logFault;
    this.#rateLimit = options.rateLimit; // a local client is not metered (rate_limit.ts)
    this.#dialect = options.dialect ?? v6Dialect(options.version);
    this.#authTimer = setTimeout(() => this.#onAuthDeadline(), options.limits.authTimeoutMs);
    ws.onopen = () => {
      const greeting = this.#dialect.greeting(this.id);
      if (greeting !== null) this.#send(greeting);
    };
    ws.onmessage = (event) => this.#onMessage(event.data, event.size);
    ws.onclose = () => this.#dispose();
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
    if (!this.#isAuthenticated || this.#ws.readyState !== ServerWebSocket.OPEN) return;
    const updates = this.#filter
      ? shared.batch.updates.filter((u) => this.#accepts(u))
      : shared.batch.updates;
    if (updates.length === 0) return;
    const json = this.#filter ? this.#dialect.updatesJson(updates) : shared.payloadJson();
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
    if (this.#filter) return this.#send(prefix + json + this.#dialect.eventSuffix);
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

  #accepts(u: StateUpdate): boolean {
    const f = this.#filter!;
    if (u.updateType === "full") return true;
    if (!f.positions && u.data.event === "positions") return false;
    if (f.updateTypes && !f.updateTypes.has(u.updateType)) return false;
    if (f.projectIds && u.projectId !== null && !f.projectIds.has(u.projectId)) return false;
    return true;
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
    return this.#isAuthenticated
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
    clearTimeout(this.#authTimer);
    this.#held.clear();
    this.#waitingSince = null;
    this.#lagSince = null;
    this.#answers.wake();
  }

  #onAuthDeadline(): void {
    this.#authTimer = undefined;
    if (this.#isAuthenticated || this.#isClosing) return;
    // An approval may be waiting for the operator (local clients only): its answer decides.
    if (this.#authsRunning > 0) this.#isAuthOverdue = true;
    else this.#closeFor(CloseReasons.authTimeout);
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
    if (!this.#isAuthenticated && size > this.#limits.maxMessageBytes) {
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
    if (!this.#isAuthenticated) return this.#closeFor(CloseReasons.notReading);
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
    const early = this.#isAuthenticated && message.type === "action"
      ? this.#outcome(message)
      : null;
    this.#answers.push(cost, async (paid) => {
      const outcome = this.#isClosing ? null : await (early ?? this.#outcome(message));
      paid();
      if (outcome?.isFailed) {
        const fault = unexpectedOf(outcome.error);
        if (fault) this.#logFault?.(`WebSocket ${message.type} of client ${this.id}: ${fault}`);
        this.#send(this.#dialect.error(id, outcome.error, message.type));
      } else if (outcome) {
        this.#send(this.#dialect.answer(id, message.type, outcome.data, this.id));
      }
      if (this.#isAuthOverdue && !this.#isAuthenticated && this.#authsRunning === 0) {
        this.#closeFor(CloseReasons.authTimeout);
      }
    });
  }

  /** Runs a message; never throws. */
  /**
   * What a message comes to: its data, or what it threw (`isFailed`, since an
   * operation may throw a falsy value: that is a failure too).
   */
  async #outcome(message: ClientMessage): Promise<Outcome> {
    if (!this.#isAuthenticated && message.type !== "auth") {
      return {
        isFailed: true,
        error: new CueportError(
          "AUTHENTICATION_FAILED",
          'Authenticate first: send {"type": "auth", "payload": {...}}',
        ),
      };
    }
    try {
      return { isFailed: false, data: await dispatch(message, this.#runner) };
    } catch (error) {
      return { isFailed: true, error };
    }
  }

  /** Runs `operation` through the one path (`Policy.invoke`) for this connection. */
  #invoke(operation: AnyOperation, input: unknown, options: InvokeOptions = {}): unknown {
    return this.#policy.invoke(operation, this.#caller, input, {
      ...options,
      context: this.#context,
    });
  }

  /** What this connection does for the session operations (`connect`, `subscribe`, `full`). */
  #session: SessionService = {
    connect: (credentials) => this.#connect(credentials),
    subscribe: (p) => {
      this.#filter = {
        positions: p.positions ?? true,
        ...(p.updateTypes ? { updateTypes: new Set(p.updateTypes) } : {}),
        ...(p.projectIds ? { projectIds: new Set(p.projectIds) } : {}),
      };
      return {
        subscribed: {
          updateTypes: p.updateTypes ?? "all",
          projectIds: p.projectIds ?? "all",
          positions: this.#filter.positions,
        },
      };
    },
    sendFull: () => {
      this.#sendFull("requested");
      return { seq: this.#seq };
    },
  };

  /** The `auth` message: authenticates the connection (an approval may keep it waiting). */
  async #connect(credentials: ConnectInput): Promise<{ authenticated: true; token?: string }> {
    this.#authsRunning++;
    let grant: Grant;
    try {
      grant = await this.#auth.authenticate({
        address: this.address,
        ...credentials,
        isInteractive: true,
        wire: "websocket",
        lifetimeSeconds: this.#dialect.tokenLifetimeSeconds,
      });
    } finally {
      this.#authsRunning--;
    }
    if (this.#isClosing) throw new CueportError("AUTHENTICATION_FAILED", "Connection closed");
    this.#isAuthenticated = true;
    this.#isAuthOverdue = false;
    clearTimeout(this.#authTimer);
    this.#caller.grant = grant;
    this.deviceId = grant.deviceId ?? null;
    if (!this.#caller.isLocal) this.#dialect.seen?.(this.address);
    return grant.token ? { authenticated: true, token: grant.token } : { authenticated: true };
  }

  /** What this connection's messages run with (`dispatch.ts`). */
  #runner: Runner = {
    connect: (input, options) =>
      this.#policy.invoke(CONNECT, this.#connecting, input, { ...options, context: this.#context }),
    invoke: (operation, input, options) => this.#invoke(operation, input, options),
    dialect: () => this.#dialect,
    core: () => this.#core,
  };
}

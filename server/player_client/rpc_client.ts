/**
 * The server's JSON-RPC engine: numbered requests, dispatch of notifications
 * in arrival order, and every pending request rejected when the pipe closes,
 * so no caller waits forever. A request has no deadline of its own: whether
 * the player still works is judged by its progress (`liveness.ts`), from the
 * figures kept here (when it last sent anything, when a request last moved).
 * @module
 */
import {
  isNotification,
  isResponse,
  RpcError,
  RpcErrorCode,
  type RpcErrorObject,
  type RpcMessage,
  type RpcRequest,
  type RpcResponse,
} from "../../protocol/jsonrpc.ts";
import {
  ACTION_BATCH_MAX,
  Method,
  Notification,
  RequestProgressParams,
} from "../../protocol/methods.ts";
import type { Transport } from "../../protocol/transport.ts";
import { setImmediate } from "node:timers";
import { CueportError } from "../core/errors.ts";
import { notificationOf } from "./results.ts";

/** Options of one request. */
export interface RequestOptions {
  /**
   * Called synchronously when the response is read, before any later message
   * is dispatched; lets a caller mark where in the notification stream it falls.
   */
  onResponse?: () => void;
  /** Called for each `request.progress` the player sends about this request. */
  onProgress?: (progress: number, total: number | null) => void;
  /**
   * For a player without heartbeats (protocol before 1.5): how long it may send
   * nothing while this request is pending before it counts as hung, ms (an
   * import a 1.0 player copies in order without progress reports).
   */
  quietMs?: number;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** When it was written to the player (the clock's ms); Infinity until then. */
  writtenAt: number;
  onResponse: (() => void) | undefined;
  onProgress: ((progress: number, total: number | null) => void) | undefined;
  quietMs: number | undefined;
  method: string;
}

/** A request still waiting for its answer, as the liveness watch reports it. */
export interface PendingRequest {
  method: string;
  /** How long since it was written, ms. */
  forMs: number;
}

/** A JSON-RPC client over a `Transport`. */
export class RpcClient {
  /** Receives notifications, synchronously and in order. */
  onnotification?: (method: string, params: unknown) => void;
  /** Called once when the pipe ends. */
  onclose?: () => void;
  /** Called for each answer read, with its method and how long it took from the write, ms. */
  onanswer?: (method: string, ms: number) => void;
  #transport: Transport;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #isClosed = false;
  #now: () => number;
  #lastMessageAt: number;
  #lastProgressAt: number;
  /** Why pending requests are rejected when the pipe ends (`abandon` sets it). */
  #downReason = "stopped";

  /** Wraps `transport`; call `start()` to begin reading. `now` is the watch's clock, ms. */
  constructor(transport: Transport, options: { now?: () => number } = {}) {
    this.#transport = transport;
    this.#now = options.now ?? (() => performance.now());
    this.#lastMessageAt = this.#lastProgressAt = this.#now();
    transport.onmessage = (message) => this.#dispatch(message);
    transport.onclose = () => this.#closed();
  }

  /** Starts reading; resolves when the pipe has ended. */
  start(): Promise<void> {
    return this.#transport.start();
  }

  /** How many requests await a response. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** When the player last sent anything (a response or a notification), on the clock. */
  get lastMessageAt(): number {
    return this.#lastMessageAt;
  }

  /** When a request last moved: an answer (heartbeats aside) or a `request.progress`. */
  get lastProgressAt(): number {
    return this.#lastProgressAt;
  }

  /** Marks progress the player reported otherwise (its heartbeat's counter moved). */
  progressed(): void {
    this.#lastProgressAt = this.#now();
  }

  /** The oldest request written and not answered, heartbeats aside; null when none. */
  oldestPending(): PendingRequest | null {
    for (const pending of this.#pending.values()) {
      if (pending.method === Method.HEARTBEAT || pending.writtenAt === Infinity) continue;
      return { method: pending.method, forMs: this.#now() - pending.writtenAt };
    }
    return null;
  }

  /**
   * How long a player without heartbeats may be silent now, ms: the longest
   * `quietMs` of the pending requests, or `fallback`; null when nothing is
   * pending (an idle player owes nothing).
   */
  quietBound(fallback: number): number | null {
    let bound: number | null = null;
    for (const pending of this.#pending.values()) {
      bound = Math.max(bound ?? 0, pending.quietMs ?? fallback);
    }
    return bound;
  }

  /**
   * Sends a request and resolves with its result.
   * @throws {RpcError} for an error response
   * @throws {CueportError} NOT_READY when the pipe closed first (the outcome is then unknown)
   */
  request<T = unknown>(method: string, params?: unknown, options: RequestOptions = {}): Promise<T> {
    if (this.#isClosed) {
      return Promise.reject(new CueportError("NOT_READY", "The player is not running"));
    }
    const id = this.#nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    const pending: Pending = {
      resolve: resolve as (v: unknown) => void,
      reject,
      writtenAt: Infinity,
      onResponse: options.onResponse,
      onProgress: options.onProgress,
      quietMs: options.quietMs,
      method,
    };
    this.#pending.set(id, pending);
    if (this.#queue.push({ id, method, params, pending }) === 1) setImmediate(this.#flushTurn);
    return promise;
  }

  /**
   * Whether the actions of one write go as one `action.batch` (protocol 1.11): the supervisor
   * turns it on for a player whose minor has it. Off, each is its own `action.run`.
   */
  batchesActions = false;

  /** The `action.batch` requests written and not answered: their actions' ids, by the batch's id. */
  #batches = new Map<number, number[]>();

  /**
   * The lines of one write: each request as it is, but runs of `action.run` (two or more in a
   * row, when `batchesActions`) as one `action.batch` each, so an action costs both sides its
   * params alone, not an envelope (issue 42).
   */
  #messagesOf(batch: Queued[]): RpcMessage[] {
    const messages: RpcMessage[] = [];
    for (let i = 0; i < batch.length;) {
      let end = i + 1;
      if (this.batchesActions && batch[i]!.method === Method.ACTION_RUN) {
        while (
          end < batch.length && end - i < ACTION_BATCH_MAX &&
          batch[end]!.method === Method.ACTION_RUN
        ) end++;
      }
      messages.push(end - i === 1 ? messageOf(batch[i]!) : this.#batchOf(batch.slice(i, end)));
      i = end;
    }
    return messages;
  }

  #batchOf(actions: Queued[]): RpcMessage {
    const id = this.#nextId++;
    this.#batches.set(id, actions.map((a) => a.id));
    const params = { actions: actions.map((a) => a.params) };
    return { jsonrpc: "2.0", id, method: Method.ACTION_BATCH, params };
  }

  /**
   * Requests issued in one turn of the event loop are written together: an
   * immediate runs once the callbacks of this turn's I/O are done (no timer
   * clamp), so a burst of HTTP requests reaches the player in one write and it
   * answers them in one write. Not a MessageChannel's message: 1.5 us of CPU a
   * turn against 0.85 (measured, issue 42), once per batch on the action path.
   */
  #queue: Queued[] = [];
  #flushTurn = () => this.#flushQueue();

  /** A write to the player is under way: requests meanwhile wait for it and go in the next. */
  #isWriting = false;

  #flushQueue(): void {
    if (this.#isClosed || this.#isWriting || this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    // One clock read per batch.
    const now = this.#now();
    for (const { pending } of batch) pending.writtenAt = now;
    const messages = this.#messagesOf(batch);
    this.#isWriting = true;
    this.#transport.sendMany(messages).then(() => {
      this.#isWriting = false;
      // What came while the write was under way goes in one write (a stream of datagrams,
      // each its own turn of the event loop, still reaches the player in batches).
      this.#flushQueue();
    }, (error) => {
      this.#isWriting = false;
      for (const m of messages) this.#batches.delete((m as RpcRequest).id as number);
      for (const { id } of batch) {
        this.#settle(
          id,
          (p) =>
            p.reject(
              new CueportError("NOT_READY", `Cannot reach the player: ${(error as Error).message}`),
            ),
        );
      }
      this.#flushQueue();
    });
  }

  /**
   * Ends the session: every pending request is rejected NOT_READY saying the
   * player `reason` (e.g. "was declared hung") and that its outcome is
   * unknown, then the pipe is closed.
   */
  async abandon(reason: string): Promise<void> {
    this.#downReason = reason;
    this.#closed();
    await this.#transport.close();
  }

  /** Closes the pipe; pending requests are rejected. */
  async close(): Promise<void> {
    await this.#transport.close();
    this.#closed();
  }

  #dispatch(message: RpcMessage): void {
    this.#lastMessageAt = this.#now();
    if (isNotification(message)) {
      if (message.method === Notification.REQUEST_PROGRESS) {
        this.#progress(notificationOf(RequestProgressParams, message.params));
      } else this.onnotification?.(message.method, message.params);
      return;
    }
    if (!isResponse(message)) return; // the player sends no requests
    const response = message as RpcResponse;
    if (typeof response.id !== "number") return;
    const pending = this.#pending.get(response.id);
    if (!pending) return this.#batchAnswered(response);
    if (pending.method !== Method.HEARTBEAT) this.#lastProgressAt = this.#lastMessageAt;
    pending.onResponse?.();
    this.onanswer?.(pending.method, this.#lastMessageAt - pending.writtenAt);
    this.#settle(response.id, (pending) => {
      if ("error" in response) {
        const { code, message: text, data } = response.error;
        pending.reject(new RpcError(code, text, data));
      } else pending.resolve(response.result);
    });
  }

  /**
   * The answer to an `action.batch`: each action's entry settles it as its own answer would; an
   * error answer (or one without an object entry for an action) settles every action it leaves out.
   */
  #batchAnswered(response: RpcResponse): void {
    const ids = this.#batches.get(response.id as number);
    if (!ids) return;
    this.#batches.delete(response.id as number);
    this.#lastProgressAt = this.#lastMessageAt;
    const outcomes = "result" in response ? outcomesOf(response.result) : [];
    const failed = "error" in response ? response.error : {
      code: RpcErrorCode.INTERNAL_ERROR,
      message: `The player answered ${Method.ACTION_BATCH} without an outcome for this action`,
    };
    ids.forEach((id, i) => {
      // An entry that is not an object (null, a number: a broken player) is no outcome either.
      const entry = typeof outcomes[i] === "object" ? outcomes[i] ?? undefined : undefined;
      this.#settle(id, (pending) => {
        pending.onResponse?.();
        this.onanswer?.(pending.method, this.#lastMessageAt - pending.writtenAt);
        const error = entry === undefined ? failed : (entry as { error?: RpcErrorObject }).error;
        if (error === undefined) pending.resolve(entry);
        else pending.reject(new RpcError(error.code, error.message, error.data));
      });
    });
  }

  /** The player works on a request: that is progress. */
  #progress(params: RequestProgressParams | undefined): void {
    const pending = typeof params?.id === "number" ? this.#pending.get(params.id) : undefined;
    if (!pending || pending.writtenAt === Infinity) return; // answered, or not yet written
    this.#lastProgressAt = this.#now();
    pending.onProgress?.(params!.progress, params!.total);
  }

  #settle(id: number, fn: (pending: Pending) => void): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    fn(pending);
  }

  #closed(): void {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#batches.clear();
    for (const id of [...this.#pending.keys()]) {
      this.#settle(id, (p) => p.reject(unknownOutcome(p.method, this.#downReason)));
    }
    this.onclose?.();
  }
}

/** A request waiting for the next write. */
interface Queued {
  id: number;
  method: string;
  params: unknown;
  pending: Pending;
}

function messageOf({ id, method, params }: Queued): RpcMessage {
  return params === undefined
    ? { jsonrpc: "2.0", id, method }
    : { jsonrpc: "2.0", id, method, params };
}

/** The entries of an `action.batch` result, or none when it has no list of them. */
function outcomesOf(result: unknown): unknown[] {
  const outcomes = (result as { outcomes?: unknown } | null)?.outcomes;
  return Array.isArray(outcomes) ? outcomes : [];
}

/**
 * NOT_READY for a request the player may or may not have carried out: it went
 * away (`reason`: "stopped", "was declared hung") before answering. A retry
 * with the same Idempotency-Key gets the player's own record of it.
 */
export function unknownOutcome(method: string, reason: string): CueportError {
  return new CueportError(
    "NOT_READY",
    `The player ${reason} before answering ${method}, so whether it was done is unknown: send it again with the same Idempotency-Key to get its outcome`,
  );
}

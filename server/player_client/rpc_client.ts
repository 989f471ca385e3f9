/**
 * The server's JSON-RPC engine: numbered requests with timeouts, dispatch of
 * notifications in arrival order, and every pending request rejected when
 * the pipe closes, so no caller waits forever. A busy player is told from a
 * hung one: `request.progress` moves the deadline of the request it names
 * (the timeout then counts from the last progress), and a request that times
 * out while an older one is still pending is not counted toward a hang (it
 * may only be queued behind that one).
 * @module
 */
import {
  isNotification,
  isResponse,
  RpcError,
  type RpcMessage,
  type RpcResponse,
} from "../../protocol/jsonrpc.ts";
import { Notification, RequestProgressParams } from "../../protocol/methods.ts";
import type { Transport } from "../../protocol/transport.ts";
import { CueportError } from "../core/errors.ts";
import { notificationOf } from "./results.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";

/** How often deadlines are checked, ms: the precision of request timeouts. */
const SWEEP_MS = 10;

/** Options of one request. */
export interface RequestOptions {
  /** Milliseconds before the request is rejected with TIMEOUT. */
  timeoutMs?: number;
  /**
   * Called synchronously when the response is read, before any later message
   * is dispatched; lets a caller mark where in the notification stream it falls.
   */
  onResponse?: () => void;
  /**
   * Called for each `request.progress` the player sends about this request;
   * each also restarts its timeout, so a request that advances never times out.
   */
  onProgress?: (progress: number, total: number | null) => void;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** `performance.now()` after which the request times out; set when written. */
  deadline: number;
  timeoutMs: number;
  onResponse: (() => void) | undefined;
  onProgress: ((progress: number, total: number | null) => void) | undefined;
  method: string;
}

/** A JSON-RPC client over a `Transport`. */
export class RpcClient {
  /** Receives notifications, synchronously and in order. */
  onnotification?: (method: string, params: unknown) => void;
  /** Called once when the pipe ends. */
  onclose?: () => void;
  /**
   * Called when a request times out while no older one is pending, with how
   * many did in a row (an answer or a progress report resets the count).
   */
  ontimeout?: (inRow: number) => void;
  #transport: Transport;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #defaultTimeoutMs: number;
  #isClosed = false;
  #timeoutsInRow = 0;
  /** One timer sweeps every deadline, instead of a timer per request. */
  #sweeper: ReturnType<typeof setInterval> | null = null;

  /** Wraps `transport`; call `start()` to begin reading. */
  constructor(transport: Transport, options: { timeoutMs?: number } = {}) {
    this.#transport = transport;
    this.#defaultTimeoutMs = options.timeoutMs ?? SETTING_DEFAULTS.playerTimeoutMs;
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

  /**
   * Sends a request and resolves with its result.
   * @throws {RpcError} for an error response
   * @throws {CueportError} TIMEOUT, or NOT_READY when the pipe closed first
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
      deadline: Infinity,
      timeoutMs: options.timeoutMs ?? this.#defaultTimeoutMs,
      onResponse: options.onResponse,
      onProgress: options.onProgress,
      method,
    };
    this.#pending.set(id, pending);
    const message: RpcMessage = params === undefined
      ? { jsonrpc: "2.0", id, method }
      : { jsonrpc: "2.0", id, method, params };
    if (this.#queue.push({ id, message, pending }) === 1) this.#channel.port2.postMessage(0);
    return promise;
  }

  /**
   * Requests issued in one turn of the event loop are written together: a
   * message posted on this channel runs once the current tasks are done (no
   * timer clamp), so a burst of HTTP requests reaches the player in one write
   * and it answers them in one write.
   */
  #queue: Array<{ id: number; message: RpcMessage; pending: Pending }> = [];
  #channel = (() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => this.#flushQueue();
    return channel;
  })();

  /** A write to the player is under way: requests meanwhile wait for it and go in the next. */
  #isWriting = false;

  #flushQueue(): void {
    if (this.#isWriting || this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    // Deadlines run from the write: one clock read per batch.
    const now = performance.now();
    for (const { pending } of batch) pending.deadline = now + pending.timeoutMs;
    this.#sweeper ??= setInterval(() => this.#sweep(), SWEEP_MS);
    this.#isWriting = true;
    this.#transport.sendMany(batch.map((b) => b.message)).then(() => {
      this.#isWriting = false;
      // What came while the write was under way goes in one write (a stream of datagrams,
      // each its own turn of the event loop, still reaches the player in batches).
      this.#flushQueue();
    }, (error) => {
      this.#isWriting = false;
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
   * Rejects every request past its deadline. One that waited behind an older
   * request still pending (a legacy player copying a file in order) is not
   * counted toward a hang: the oldest one's own deadline decides that. The
   * timer stops at the first sweep with nothing pending, not at each answer:
   * under load it would otherwise be made and cleared once per batch.
   */
  #sweep(): void {
    if (this.#pending.size === 0) {
      clearInterval(this.#sweeper!);
      this.#sweeper = null;
      return;
    }
    const now = performance.now();
    let isBehindOlder = false;
    for (const [id, pending] of this.#pending) {
      if (pending.deadline > now) {
        isBehindOlder = true;
        continue;
      }
      this.#settle(
        id,
        (p) =>
          p.reject(
            new CueportError(
              "TIMEOUT",
              `The player did not answer ${p.method} within ${p.timeoutMs} ms`,
            ),
          ),
      );
      if (!isBehindOlder) this.ontimeout?.(++this.#timeoutsInRow);
    }
  }

  /** Closes the pipe; pending requests are rejected. */
  async close(): Promise<void> {
    await this.#transport.close();
    this.#closed();
  }

  #dispatch(message: RpcMessage): void {
    if (isNotification(message)) {
      if (message.method === Notification.REQUEST_PROGRESS) {
        this.#progress(notificationOf(RequestProgressParams, message.params));
      } else this.onnotification?.(message.method, message.params);
      return;
    }
    if (!isResponse(message)) return; // the player sends no requests
    const response = message as RpcResponse;
    if (typeof response.id !== "number") return;
    this.#timeoutsInRow = 0;
    this.#pending.get(response.id)?.onResponse?.();
    this.#settle(response.id, (pending) => {
      if ("error" in response) {
        const { code, message: text, data } = response.error;
        pending.reject(new RpcError(code, text, data));
      } else pending.resolve(response.result);
    });
  }

  /** The player works on a request: its timeout restarts now. */
  #progress(params: RequestProgressParams | undefined): void {
    const pending = typeof params?.id === "number" ? this.#pending.get(params.id) : undefined;
    if (!pending || pending.deadline === Infinity) return; // answered, or not yet written
    pending.deadline = performance.now() + pending.timeoutMs;
    this.#timeoutsInRow = 0;
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
    this.#channel.port1.close();
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
    for (const id of [...this.#pending.keys()]) {
      this.#settle(
        id,
        (p) =>
          p.reject(
            new CueportError("NOT_READY", `The player stopped before answering ${p.method}`),
          ),
      );
    }
    this.onclose?.();
  }
}

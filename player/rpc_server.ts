/**
 * The player's side of the protocol: answers requests one at a time, in
 * order, and writes the state updates a request caused before its response.
 * The slow part of an import (copying the file) runs beside that order, with
 * progress sent at once; its commit then joins the order (`beside.ts`). A
 * `heartbeat` is answered at once, beside the order, with the order's figures
 * (requests handled, queued, the one holding the order and for how long).
 * Updates from the clock (clip ends, cues, position reports) are sent as
 * they happen, batched per microtask. A batch is coalesced: an update a later
 * one supersedes is left out (`protocol/coalesce.ts`). The methods are in
 * `rpc_methods.ts`.
 * @module
 */
import {
  isRequest,
  RpcError,
  RpcErrorCode,
  type RpcId,
  type RpcMessage,
  type RpcRequest,
  type RpcResponse,
} from "../protocol/jsonrpc.ts";
import {
  Method,
  type MidiLocalParams,
  Notification,
  type RequestProgressParams,
  type StateUpdateParams,
} from "../protocol/methods.ts";
import { coalesceUpdates } from "../protocol/coalesce.ts";
import type { StateUpdate } from "../protocol/state.ts";
import type { Transport } from "../protocol/transport.ts";
import type { PlayerApp } from "./app.ts";
import { Beside, type OrderedStep } from "./beside.ts";
import { quoted } from "./errors.ts";
import { toErrorObject } from "./rpc_errors.ts";
import {
  type MethodOptions,
  type OrderFigures,
  playerMethods,
  type Session,
} from "./rpc_methods.ts";

/** Options of `servePlayer`. */
export interface ServeOptions extends MethodOptions {
  /** Called after a `shutdown` request was answered and the transport closed. */
  onShutdown?: () => void;
  /** Real time in ms, for how long a request has held the order (default `performance.now`). */
  now?: () => number;
}

/** A request to run in order, or the ordered step of one whose slow part has finished. */
interface Task {
  request: RpcRequest;
  step?: OrderedStep<unknown>;
}

/** Connects the app to a transport; resolves when the transport closes. */
export function servePlayer(
  app: PlayerApp,
  transport: Transport,
  options: ServeOptions = {},
): Promise<void> {
  return new PlayerServer(app, transport, options).serve();
}

/**
 * One session of the protocol. Its state, in two parts: the **order** (the
 * backlog of requests read, the one being handled, those whose slow part
 * runs beside) and the **outbox** (updates not yet sent, answers not yet
 * written). Answers go out when the order drains, after one notification of
 * every update the burst made, so the service has applied a request's updates
 * before it reads its answer.
 */
class PlayerServer {
  readonly #app: PlayerApp;
  readonly #transport: Transport;
  readonly #options: ServeOptions;
  readonly #session: Session = { isInitialized: false, figures: () => this.#figures() };
  readonly #handlers: ReturnType<typeof playerMethods>;
  /** Aborted when the session ends: work beside the order stops and cleans up. */
  readonly #ended = new AbortController();

  // ---- the order
  /** Requests read (or steps rejoined), waiting their turn. */
  readonly #backlog: Task[] = [];
  /** A request is being handled (synchronously) now. */
  #isHandling = false;
  /** An asynchronous handler (a Project write) runs: later requests wait. */
  #isWaiting = false;
  /** Requests read (or steps rejoined) but not yet answered. */
  #unanswered = 0;
  /** Requests whose slow part runs beside the order (imports copying). */
  #besides = 0;
  /** Requests answered in the order: the counter a heartbeat shows moving. */
  #handled = 0;
  /** The asynchronous request holding the order, and since when (`options.now`). */
  #busy: { method: string; since: number } | null = null;
  readonly #idleWaiters: Array<() => void> = [];

  // ---- the outbox
  /** State updates not yet sent. */
  #updates: StateUpdate[] = [];
  /** Answers ready to write, in order. */
  #outgoing: RpcMessage[] = [];
  #isUpdateFlushQueued = false;
  /** Whether the output's local MIDI ports were said since `initialize` (`#flush`). */
  #isMidiSaid = false;
  #isAnswerFlushQueued = false;

  constructor(app: PlayerApp, transport: Transport, options: ServeOptions) {
    this.#app = app;
    this.#transport = transport;
    this.#options = options;
    this.#handlers = playerMethods(app, this.#session, options);
  }

  /** Serves until the transport closes; requests read before then are still answered. */
  serve(): Promise<void> {
    this.#app.onUpdate = (update) => this.#onUpdate(update);
    this.#app.onMidi = (event) => this.#onMidi(event);
    // The editor page's edits, in a rig group (1.17): news for the service, sent at once.
    this.#app.editorForward.connected((params) => {
      void this.#transport.send({ jsonrpc: "2.0", method: Notification.EDITOR_EDIT, params })
        .catch(() => {});
    });
    this.#transport.onmessage = (message) => {
      if (!isRequest(message)) return; // the server sends no notifications or responses
      if (message.method === Method.HEARTBEAT) return this.#heartbeat(message);
      this.#unanswered++;
      this.#backlog.push({ request: message });
      if (!this.#isWaiting) this.#pump();
    };
    // A line that is no request (not JSON, too long, too deep, not JSON-RPC): its id is unknown.
    this.#transport.onerror = (error) => {
      const code = error instanceof RpcError ? error.code : RpcErrorCode.PARSE_ERROR;
      void this.#transport.send({
        jsonrpc: "2.0",
        id: null,
        error: { code, message: error.message },
      })
        .catch(() => {});
    };
    // Copies still running when the input ends are stopped (nobody will commit them)
    // and their partial files removed.
    return this.#transport.start().then(() => {
      this.#ended.abort(new Error("the connection to the service ended"));
      this.#app.editorForward.disconnected();
      return this.#whenIdle();
    }).then(() => this.#flush());
  }

  // ---- the outbox --------------------------------------------------------------

  #notification(updates: StateUpdate[]): RpcMessage {
    const params: StateUpdateParams = { updates, now: this.#app.clock.now() };
    return { jsonrpc: "2.0", method: Notification.STATE_UPDATE, params };
  }

  /** Local MIDI is news, not state: it goes out at once (the ports once initialized: `#flush`). */
  #onMidi(params: MidiLocalParams): void {
    if (!this.#session.isInitialized || !this.#isMidiSaid) return;
    void this.#transport.send({ jsonrpc: "2.0", method: Notification.MIDI_LOCAL, params })
      .catch(() => {});
  }

  /** Clock-driven updates (clip ends, cues, positions) go out per microtask when idle. */
  #onUpdate(update: StateUpdate): void {
    this.#updates.push(update);
    if (this.#isHandling || this.#isUpdateFlushQueued) return;
    this.#isUpdateFlushQueued = true;
    queueMicrotask(() => {
      this.#isUpdateFlushQueued = false;
      if (!this.#isHandling && this.#unanswered === 0) void this.#flush();
    });
  }

  /** One write: the coalesced updates, then the answers. A closed pipe is the service's exit. */
  #flush(): Promise<void> {
    const batch = this.#outgoing;
    this.#outgoing = [];
    if (this.#session.isInitialized && this.#updates.length > 0) {
      batch.unshift(this.#notification(coalesceUpdates(this.#updates)));
      this.#updates = [];
    }
    if (this.#session.isInitialized && !this.#isMidiSaid) {
      // After `initialize`'s answer: the local MIDI ports the output lists now, none without it.
      this.#isMidiSaid = true;
      const params = this.#app.output?.midi.current() ??
        { type: "ports", inputs: [], outputs: [], error: "no output running" };
      batch.push({ jsonrpc: "2.0", method: Notification.MIDI_LOCAL, params });
    }
    if (batch.length === 0) return Promise.resolve();
    return this.#transport.sendMany(batch).catch(() => {});
  }

  /** After the rest of the chunk just read: its requests are answered in the same write. */
  #flushWhenDrained(): void {
    if (this.#unanswered !== 0 || this.#isAnswerFlushQueued) return;
    this.#isAnswerFlushQueued = true;
    queueMicrotask(() => {
      this.#isAnswerFlushQueued = false;
      if (this.#unanswered === 0) void this.#flush();
    });
  }

  /** Progress is news, not state: it goes out at once, even while a request runs. */
  #progressOf(id: RpcId) {
    return (update: StateUpdate, done: number, total: number | null) => {
      if (!this.#session.isInitialized) return;
      const params: RequestProgressParams = { id, progress: done, total };
      void this.#transport.sendMany([
        this.#notification([update]),
        { jsonrpc: "2.0", method: Notification.REQUEST_PROGRESS, params },
      ]).catch(() => {});
    };
  }

  /** A heartbeat is answered at once, beside the order and the outbox: it says how the order moves. */
  #heartbeat(request: RpcRequest): void {
    let response: RpcResponse;
    try {
      response = { jsonrpc: "2.0", id: request.id, result: this.#dispatch(request) };
    } catch (error) {
      response = failure(request, error, this.#app.store.dataDir);
    }
    void this.#transport.send(response).catch(() => {});
  }

  #figures(): OrderFigures {
    const busy = this.#busy;
    const now = this.#options.now?.() ?? performance.now();
    return {
      handled: this.#handled,
      queued: this.#backlog.length,
      beside: this.#besides,
      busy: busy && { method: busy.method, forMs: Math.max(0, now - busy.since) },
    };
  }

  #answer(request: RpcRequest, response: RpcResponse): void {
    this.#isHandling = false;
    this.#outgoing.push(response);
    this.#unanswered--;
    this.#handled++;
    if (request.method === Method.SHUTDOWN && !isInvalidParams(response)) {
      void this.#flush().then(() => this.#transport.close()).then(() =>
        this.#options.onShutdown?.()
      );
    } else if (this.#outgoing.length >= 256) {
      void this.#flush();
    } else this.#flushWhenDrained();
  }

  // ---- the order ---------------------------------------------------------------

  /**
   * Requests run one at a time, in order: synchronous ones as they are read,
   * later ones wait while an asynchronous one runs. The slow part of an import
   * runs beside them (`Beside`).
   */
  #pump(): void {
    while (!this.#isWaiting && this.#backlog.length > 0) {
      const task = this.#backlog.shift()!;
      const waiting = this.#run(task);
      if (waiting) {
        this.#isWaiting = true;
        const since = this.#options.now?.() ?? performance.now();
        this.#busy = { method: String(task.request.method), since };
        void waiting.then(() => {
          this.#busy = null;
          this.#isWaiting = false;
          this.#pump();
        });
      }
    }
    if (!this.#isWaiting && this.#besides === 0) {
      for (const resolve of this.#idleWaiters.splice(0)) resolve();
    }
  }

  /** Resolves once every request read so far has been answered, imports included. */
  #whenIdle(): Promise<void> {
    return this.#isWaiting || this.#besides > 0
      ? new Promise((resolve) => this.#idleWaiters.push(resolve))
      : Promise.resolve();
  }

  /** Runs one task; a promise while an asynchronous handler runs, else undefined. */
  #run(task: Task): Promise<void> | undefined {
    const { request } = task;
    this.#isHandling = true;
    let result: unknown;
    try {
      result = task.step ? task.step() : this.#dispatch(request);
    } catch (error) {
      this.#answer(request, failure(request, error, this.#app.store.dataDir));
      return undefined;
    }
    if (result instanceof Beside) {
      this.#leave(request, result);
      return undefined;
    }
    if (!(result instanceof Promise)) {
      this.#answer(request, { jsonrpc: "2.0", id: request.id, result });
      return undefined;
    }
    return result.then(
      (value) => this.#answer(request, { jsonrpc: "2.0", id: request.id, result: value }),
      (error) => this.#answer(request, failure(request, error, this.#app.store.dataDir)),
    );
  }

  /** Calls the request's method. @throws {RpcError} for a request that cannot run */
  #dispatch(request: RpcRequest): unknown {
    if (!isRpcId(request.id)) {
      throw new RpcError(
        RpcErrorCode.INVALID_REQUEST,
        "Invalid request: id must be a string, a number or null",
      );
    }
    const handler = this.#handlers[request.method];
    if (!handler) {
      throw new RpcError(RpcErrorCode.METHOD_NOT_FOUND, `Unknown method ${quoted(request.method)}`);
    }
    if (!this.#session.isInitialized && request.method !== Method.INITIALIZE) {
      throw new RpcError(RpcErrorCode.INVALID_REQUEST, "Call initialize first");
    }
    return handler(request.params, {
      id: request.id,
      progress: this.#progressOf(request.id),
      signal: this.#ended.signal,
    });
  }

  /**
   * The request leaves the order while its slow part runs; its ordered step
   * joins the order when that ends (or fails), like a request read then.
   */
  #leave(request: RpcRequest, work: Beside<unknown>): void {
    this.#isHandling = false;
    this.#unanswered--;
    this.#besides++;
    this.#flushWhenDrained();
    const rejoin = (step: OrderedStep<unknown>) => {
      this.#besides--;
      this.#unanswered++;
      this.#backlog.push({ request, step });
      if (!this.#isWaiting) this.#pump();
    };
    work.ready.then(rejoin, (error) =>
      rejoin(() => {
        throw error;
      }));
  }
}

/** The error answer to a request. */
function failure(request: RpcRequest, error: unknown, dataDir: string): RpcResponse {
  return {
    jsonrpc: "2.0",
    id: isRpcId(request.id) ? request.id : null,
    error: toErrorObject(error, dataDir),
  };
}

/** Whether a request's id is one JSON-RPC allows (a fuzzed one may be an object). */
function isRpcId(id: unknown): id is RpcId | null {
  return typeof id === "string" || typeof id === "number" || id === null;
}

/** Whether a response refuses its request's params: a `shutdown` with bad params shuts nothing down. */
function isInvalidParams(response: RpcResponse): boolean {
  return "error" in response && response.error.code === RpcErrorCode.INVALID_PARAMS;
}

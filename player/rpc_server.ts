/**
 * The player's side of the protocol: answers requests one at a time, in
 * order, and writes the state updates a request caused before its response.
 * The slow part of an import (copying the file) runs beside that order, with
 * progress sent at once; its commit then joins the order (`beside.ts`).
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
import { Method, Notification, type RequestProgressParams } from "../protocol/methods.ts";
import { coalesceUpdates } from "../protocol/coalesce.ts";
import type { StateUpdate } from "../protocol/state.ts";
import type { Transport } from "../protocol/transport.ts";
import type { PlayerApp } from "./app.ts";
import { Beside, type OrderedStep } from "./beside.ts";
import { quoted, Refusal } from "./errors.ts";
import { type MethodOptions, playerMethods, type Session } from "./rpc_methods.ts";

/** Options of `servePlayer`. */
export interface ServeOptions extends MethodOptions {
  /** Called after a `shutdown` request was answered and the transport closed. */
  onShutdown?: () => void;
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
  let outbox: StateUpdate[] = [];
  const session: Session = { isInitialized: false };
  let isHandling = false;
  let isFlushQueued = false;
  let isAnswerFlushQueued = false;
  /** Messages ready to write, in order. */
  let outgoing: RpcMessage[] = [];
  /** Requests read (or steps rejoined) but not yet answered, in the order. */
  let unanswered = 0;
  /** Requests whose slow part runs beside the order (imports copying). */
  let besides = 0;
  /** Aborted when the session ends: work beside the order stops and cleans up. */
  const ended = new AbortController();

  const notification = (updates: StateUpdate[]): RpcMessage => ({
    jsonrpc: "2.0",
    method: Notification.STATE_UPDATE,
    params: { updates, now: app.clock.now() },
  });

  const takeOutbox = (): RpcMessage[] => {
    if (!session.isInitialized || outbox.length === 0) return [];
    const batch = coalesceUpdates(outbox);
    outbox = [];
    return [notification(batch)];
  };

  // One write per burst: answers go out when the request queue drains (at
  // once when idle), after one notification of every update the burst made,
  // so the server has applied a request's updates before it reads its answer.
  // A closed pipe is the server's exit, nothing to report.
  const flush = (): Promise<void> => {
    const batch = [...takeOutbox(), ...outgoing];
    outgoing = [];
    if (batch.length === 0) return Promise.resolve();
    return transport.sendMany(batch).catch(() => {});
  };

  // Progress is news, not state: it goes out at once, even while a request
  // runs, with the request.progress that tells the server the request advances.
  const progressOf = (id: RpcId) => (update: StateUpdate, done: number, total: number | null) => {
    if (!session.isInitialized) return;
    const params: RequestProgressParams = { id, progress: done, total };
    void transport.sendMany([
      notification([update]),
      { jsonrpc: "2.0", method: Notification.REQUEST_PROGRESS, params },
    ]).catch(() => {});
  };

  app.onUpdate = (update) => {
    outbox.push(update);
    if (isHandling || isFlushQueued) return;
    isFlushQueued = true;
    queueMicrotask(() => {
      isFlushQueued = false;
      if (!isHandling && unanswered === 0) void flush();
    });
  };

  const handlers = playerMethods(app, session, options);

  /** After the rest of the chunk just read: its requests are answered in the same write. */
  const flushWhenDrained = (): void => {
    if (unanswered !== 0 || isAnswerFlushQueued) return;
    isAnswerFlushQueued = true;
    queueMicrotask(() => {
      isAnswerFlushQueued = false;
      if (unanswered === 0) void flush();
    });
  };

  const answer = (request: RpcRequest, response: RpcResponse): void => {
    isHandling = false;
    outgoing.push(response);
    unanswered--;
    if (request.method === Method.SHUTDOWN && !isInvalidParams(response)) {
      void flush().then(() => transport.close()).then(() => options.onShutdown?.());
    } else if (outgoing.length >= 256) {
      void flush();
    } else flushWhenDrained();
  };
  const fail = (request: RpcRequest, error: unknown): RpcResponse => ({
    jsonrpc: "2.0",
    id: isRpcId(request.id) ? request.id : null,
    error: toErrorObject(error),
  });

  /**
   * The request leaves the order while its slow part runs; its ordered step
   * joins the order when that ends (or fails), like a request read then.
   */
  const leave = (request: RpcRequest, work: Beside<unknown>): void => {
    isHandling = false;
    unanswered--;
    besides++;
    flushWhenDrained();
    const rejoin = (step: OrderedStep<unknown>) => {
      besides--;
      unanswered++;
      backlog.push({ request, step });
      if (!isWaiting) pump();
    };
    work.ready.then(rejoin, (error) =>
      rejoin(() => {
        throw error;
      }));
  };

  /** Runs one task; a promise while an asynchronous handler runs, else undefined. */
  const run = (task: Task): Promise<void> | undefined => {
    const { request } = task;
    isHandling = true;
    let result: unknown;
    try {
      if (task.step) result = task.step();
      else {
        if (!isRpcId(request.id)) {
          throw new RpcError(
            RpcErrorCode.INVALID_REQUEST,
            "Invalid request: id must be a string, a number or null",
          );
        }
        const handler = handlers[request.method];
        if (!handler) {
          throw new RpcError(
            RpcErrorCode.METHOD_NOT_FOUND,
            `Unknown method ${quoted(request.method)}`,
          );
        }
        if (!session.isInitialized && request.method !== Method.INITIALIZE) {
          throw new RpcError(RpcErrorCode.INVALID_REQUEST, "Call initialize first");
        }
        result = handler(request.params, {
          id: request.id,
          progress: progressOf(request.id),
          signal: ended.signal,
        });
      }
    } catch (error) {
      answer(request, fail(request, error));
      return undefined;
    }
    if (result instanceof Beside) {
      leave(request, result);
      return undefined;
    }
    if (!(result instanceof Promise)) {
      answer(request, { jsonrpc: "2.0", id: request.id, result });
      return undefined;
    }
    return result.then(
      (value) => answer(request, { jsonrpc: "2.0", id: request.id, result: value }),
      (error) => answer(request, fail(request, error)),
    );
  };

  // Requests run one at a time, in order: synchronous ones as they are read,
  // later ones wait while an asynchronous one (a Project write) runs. The slow
  // part of an import runs beside them (`Beside`).
  const backlog: Task[] = [];
  let isWaiting = false;
  const idleWaiters: Array<() => void> = [];
  const pump = (): void => {
    while (!isWaiting && backlog.length > 0) {
      const waiting = run(backlog.shift()!);
      if (waiting) {
        isWaiting = true;
        void waiting.then(() => {
          isWaiting = false;
          pump();
        });
      }
    }
    if (!isWaiting && besides === 0) { for (const resolve of idleWaiters.splice(0)) resolve(); }
  };
  /** Resolves once every request read so far has been answered, imports included. */
  const whenIdle = (): Promise<void> =>
    isWaiting || besides > 0
      ? new Promise((resolve) => idleWaiters.push(resolve))
      : Promise.resolve();

  transport.onmessage = (message) => {
    if (!isRequest(message)) return; // the server sends no notifications or responses
    unanswered++;
    backlog.push({ request: message });
    if (isWaiting) return;
    pump();
  };
  // A line that is no request (not JSON, too long, too deep, not JSON-RPC): its id is unknown.
  transport.onerror = (error) => {
    const code = error instanceof RpcError ? error.code : RpcErrorCode.PARSE_ERROR;
    void transport.send({ jsonrpc: "2.0", id: null, error: { code, message: error.message } })
      .catch(() => {});
  };
  // Requests read before the input ended are still answered; copies still
  // running are stopped (nobody will commit them) and their partial files removed.
  return transport.start().then(() => {
    ended.abort(new Error("the connection to the service ended"));
    return whenIdle();
  }).then(flush);
}

/** Whether a request's id is one JSON-RPC allows (a fuzzed one may be an object). */
function isRpcId(id: unknown): id is RpcId | null {
  return typeof id === "string" || typeof id === "number" || id === null;
}

/** Whether a response refuses its request's params: a `shutdown` with bad params shuts nothing down. */
function isInvalidParams(response: RpcResponse): boolean {
  return "error" in response && response.error.code === RpcErrorCode.INVALID_PARAMS;
}

function toErrorObject(error: unknown) {
  if (error instanceof RpcError) return error.toObject();
  if (error instanceof Refusal) return { code: error.code, message: error.message };
  return {
    code: RpcErrorCode.INTERNAL_ERROR,
    message: `Player error: ${(error as Error).message}`,
  };
}

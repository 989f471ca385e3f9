/**
 * The player's side of the protocol: answers requests one at a time, in
 * order, and writes the state updates a request caused before its response.
 * Updates from the clock (clip ends, cues, position reports) are sent as
 * they happen, batched per microtask. A batch is coalesced: an update a later
 * one supersedes is left out (`protocol/coalesce.ts`).
 * @module
 */
import {
  isRequest,
  RpcError,
  RpcErrorCode,
  type RpcMessage,
  type RpcRequest,
  type RpcResponse,
} from "../protocol/jsonrpc.ts";
import {
  type ActionRunParams,
  type ApprovalRequestParams,
  type ApprovalRequestResult,
  type ClockAdvanceParams,
  type InitializeParams,
  type InitializeResult,
  isCompatibleVersion,
  Method,
  Notification,
  type PairingShowParams,
  PLAYER_PROTOCOL_VERSION,
} from "../protocol/methods.ts";
import { coalesceUpdates } from "../protocol/coalesce.ts";
import type { StateUpdate } from "../protocol/state.ts";
import type { EditApplyParams } from "../protocol/edits/mod.ts";
import type { Transport } from "../protocol/transport.ts";
import { PLAYER_INFO, type PlayerApp } from "./app.ts";
import type { VirtualClock } from "./clock.ts";
import { Refusal } from "./errors.ts";

/** Options of `servePlayer`. */
export interface ServeOptions {
  /** When set, `clock.advance` is offered and moves this clock. */
  virtualClock?: VirtualClock;
  /** How the headless player answers approval requests (it has no screen to ask on). */
  approval?: "approve" | "deny" | "wait";
  /** Called after a `shutdown` request was answered and the transport closed. */
  onShutdown?: () => void;
}

/** Connects the app to a transport; resolves when the transport closes. */
export function servePlayer(
  app: PlayerApp,
  transport: Transport,
  options: ServeOptions = {},
): Promise<void> {
  let outbox: StateUpdate[] = [];
  let isInitialized = false;
  let isHandling = false;
  let isFlushQueued = false;
  let isAnswerFlushQueued = false;
  /** Messages ready to write, in order. */
  let outgoing: RpcMessage[] = [];
  /** Requests read but not yet answered. */
  let unanswered = 0;

  const notification = (updates: StateUpdate[]): RpcMessage => ({
    jsonrpc: "2.0",
    method: Notification.STATE_UPDATE,
    params: { updates, now: app.clock.now() },
  });

  const takeOutbox = (): RpcMessage[] => {
    if (!isInitialized || outbox.length === 0) return [];
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

  // Progress is news, not state: it goes out at once, even while a request runs.
  app.onProgress = (update) => {
    if (isInitialized) void transport.send(notification([update])).catch(() => {});
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

  const handlers: Record<string, (params: unknown) => unknown> = {
    [Method.INITIALIZE]: (params) => {
      const p = params as InitializeParams | undefined;
      if (!p || typeof p.protocolVersion !== "string") {
        throw new RpcError(RpcErrorCode.INVALID_PARAMS, "initialize needs protocolVersion");
      }
      if (!isCompatibleVersion(p.protocolVersion, PLAYER_PROTOCOL_VERSION)) {
        throw new RpcError(
          RpcErrorCode.INVALID_REQUEST,
          `Protocol version ${p.protocolVersion} is not supported: this player speaks ${PLAYER_PROTOCOL_VERSION}`,
        );
      }
      isInitialized = true;
      const result: InitializeResult = {
        protocolVersion: PLAYER_PROTOCOL_VERSION,
        player: { ...PLAYER_INFO },
        capabilities: { virtualClock: options.virtualClock !== undefined },
      };
      return result;
    },
    [Method.STATE_GET]: () => app.snapshot(),
    [Method.ACTION_RUN]: (params) => app.runActionNow(params as ActionRunParams),
    [Method.EDIT_APPLY]: (params) => app.applyEdits(params as EditApplyParams),
    [Method.PROJECTS_RELOAD]: () => app.reload(),
    [Method.CLOCK_ADVANCE]: (params) => {
      const clock = options.virtualClock;
      if (!clock) {
        throw new RpcError(RpcErrorCode.METHOD_NOT_FOUND, "clock.advance needs a virtual clock");
      }
      const ms = (params as ClockAdvanceParams | undefined)?.ms;
      if (typeof ms !== "number" || !(ms >= 0)) {
        throw new RpcError(RpcErrorCode.INVALID_PARAMS, "clock.advance needs ms >= 0");
      }
      clock.advance(ms);
      return { now: clock.now() };
    },
    [Method.SHUTDOWN]: () => ({}),
    [Method.APPROVAL_REQUEST]: (params) => {
      const p = params as ApprovalRequestParams;
      console.error(
        `[player] approval requested for ${p.deviceName || "a local client"} (${p.address}): ${
          options.approval ?? "approve"
        }`,
      );
      const result: ApprovalRequestResult = { decision: options.approval ?? "approve" };
      return result;
    },
    [Method.PAIRING_SHOW]: (params) => {
      const p = params as PairingShowParams;
      console.error(`[player] pairing code ${p.otp}, valid until ${p.expiresAt}`);
      return {};
    },
  };

  const answer = (request: RpcRequest, response: RpcResponse): void => {
    isHandling = false;
    outgoing.push(response);
    unanswered--;
    if (request.method === Method.SHUTDOWN) {
      void flush().then(() => transport.close()).then(() => options.onShutdown?.());
    } else if (outgoing.length >= 256) {
      void flush();
    } else if (unanswered === 0 && !isAnswerFlushQueued) {
      // After the rest of the chunk just read: its requests are answered in the same write.
      isAnswerFlushQueued = true;
      queueMicrotask(() => {
        isAnswerFlushQueued = false;
        if (unanswered === 0) void flush();
      });
    }
  };
  const fail = (request: RpcRequest, error: unknown): RpcResponse => ({
    jsonrpc: "2.0",
    id: request.id,
    error: toErrorObject(error),
  });

  /** Runs one request; a promise while an asynchronous handler runs, else undefined. */
  const run = (request: RpcRequest): Promise<void> | undefined => {
    isHandling = true;
    let result: unknown;
    try {
      const handler = handlers[request.method];
      if (!handler) {
        throw new RpcError(RpcErrorCode.METHOD_NOT_FOUND, `Unknown method "${request.method}"`);
      }
      if (!isInitialized && request.method !== Method.INITIALIZE) {
        throw new RpcError(RpcErrorCode.INVALID_REQUEST, "Call initialize first");
      }
      result = handler(request.params);
    } catch (error) {
      answer(request, fail(request, error));
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
  // later ones wait while an asynchronous one (a Project write) runs.
  const backlog: RpcRequest[] = [];
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
    if (!isWaiting) { for (const resolve of idleWaiters.splice(0)) resolve(); }
  };
  /** Resolves once every request read so far has been answered. */
  const whenIdle = (): Promise<void> =>
    isWaiting ? new Promise((resolve) => idleWaiters.push(resolve)) : Promise.resolve();

  transport.onmessage = (message) => {
    if (!isRequest(message)) return; // the server sends no notifications or responses
    unanswered++;
    backlog.push(message);
    if (isWaiting) return;
    pump();
  };
  transport.onerror = (error) => {
    void transport.send({
      jsonrpc: "2.0",
      id: null,
      error: { code: RpcErrorCode.PARSE_ERROR, message: error.message },
    }).catch(() => {});
  };
  // Requests read before the input ended are still answered.
  return transport.start().then(whenIdle).then(flush);
}

function toErrorObject(error: unknown) {
  if (error instanceof RpcError) return error.toObject();
  if (error instanceof Refusal) return { code: error.code, message: error.message };
  return {
    code: RpcErrorCode.INTERNAL_ERROR,
    message: `Player error: ${(error as Error).message}`,
  };
}

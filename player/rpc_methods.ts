/**
 * The player's protocol methods: one handler per method, each taking the
 * request's params and context. `rpc_server.ts` runs them in order; a
 * handler returns a value, a promise (it holds the requests after it) or a
 * `Beside` (its slow part runs beside them).
 * @module
 */
import { RpcError, RpcErrorCode, type RpcId } from "../protocol/jsonrpc.ts";
import {
  type ActionRunParams,
  type ApprovalRequestParams,
  type ApprovalRequestResult,
  type ClockAdvanceParams,
  type InitializeParams,
  type InitializeResult,
  isCompatibleVersion,
  Method,
  type PairingShowParams,
  PLAYER_PROTOCOL_VERSION,
} from "../protocol/methods.ts";
import type { EditApplyParams } from "../protocol/edits/mod.ts";
import type { StateUpdate } from "../protocol/state.ts";
import { PLAYER_INFO, type PlayerApp } from "./app.ts";
import type { VirtualClock } from "./clock.ts";

/** Options of the methods (those of `servePlayer`). */
export interface MethodOptions {
  /** When set, `clock.advance` is offered and moves this clock. */
  virtualClock?: VirtualClock;
  /** How the headless player answers approval requests (it has no screen to ask on). */
  approval?: "approve" | "deny" | "wait";
}

/** What a handler knows of its request and session. */
export interface MethodContext {
  /** The request's id. */
  readonly id: RpcId;
  /** Reports progress of this request at once: an update for clients, and units done and in all. */
  progress(update: StateUpdate, done: number, total: number | null): void;
  /** Aborted when the session ends: work beside the order stops. */
  readonly signal: AbortSignal;
}

/** The session state the handlers share with the server. */
export interface Session {
  isInitialized: boolean;
}

/** One method's handler. */
export type MethodHandler = (params: unknown, context: MethodContext) => unknown;

/** The handlers of every method, by name. */
export function playerMethods(
  app: PlayerApp,
  session: Session,
  options: MethodOptions,
): Record<string, MethodHandler> {
  return {
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
      session.isInitialized = true;
      const result: InitializeResult = {
        protocolVersion: PLAYER_PROTOCOL_VERSION,
        player: { ...PLAYER_INFO },
        capabilities: { virtualClock: options.virtualClock !== undefined, progress: true },
      };
      return result;
    },
    [Method.STATE_GET]: () => app.snapshot(),
    [Method.ACTION_RUN]: (params) => app.runActionNow(params as ActionRunParams),
    [Method.EDIT_APPLY]: (params, context) =>
      app.startEdits(params as EditApplyParams, {
        onProgress: context.progress,
        signal: context.signal,
      }),
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
}

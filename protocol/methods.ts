/**
 * Methods and notifications of the player protocol (docs/player-protocol.md).
 * @module
 */
import type { NormalizedAction } from "./actions.ts";
import type { RpcId } from "./jsonrpc.ts";
import type { StateUpdate } from "./state.ts";

/**
 * The protocol version this build speaks; majors must match. 1.1 added
 * `request.progress` and `capabilities.progress` (imports run beside other requests).
 */
export const PLAYER_PROTOCOL_VERSION = "1.1";

/** Method names, server to player. */
export const Method = {
  INITIALIZE: "initialize",
  STATE_GET: "state.get",
  ACTION_RUN: "action.run",
  PROJECTS_RELOAD: "projects.reload",
  CLOCK_ADVANCE: "clock.advance",
  SHUTDOWN: "shutdown",
  APPROVAL_REQUEST: "approval.request",
  PAIRING_SHOW: "pairing.show",
  EDIT_APPLY: "edit.apply",
} as const;

/** `approval.request` params: a local client asks to connect without credentials. */
export interface ApprovalRequestParams {
  requestId: string;
  address: string;
  deviceName: string;
}

/** `approval.request` result: `wait` means the operator decides (through the service's local API). */
export interface ApprovalRequestResult {
  decision: "approve" | "deny" | "wait";
}

/** `pairing.show` params: a one-time code the application may show on screen. */
export interface PairingShowParams {
  otp: string;
  expiresAt: string;
}

/** Notification names, player to server. */
export const Notification = {
  STATE_UPDATE: "state.update",
  LOG: "log",
  /** Since 1.1: a long request is advancing; the service extends its deadline. */
  REQUEST_PROGRESS: "request.progress",
} as const;

/** `initialize` params. */
export interface InitializeParams {
  protocolVersion: string;
  client: { name: string; version: string };
}

/** `initialize` result. */
export interface InitializeResult {
  protocolVersion: string;
  player: { name: string; version: string };
  capabilities: {
    /** `clock.advance` is available (the player runs on a virtual clock). */
    virtualClock: boolean;
    /**
     * Since 1.1: the player copies imported files beside other requests and
     * sends `request.progress` while it does. Absent means false.
     */
    progress?: boolean;
  };
}

/** `action.run` params. */
export type ActionRunParams = NormalizedAction;

/** `action.run` result: whether state changed and a one-line account of what was done. */
export interface ActionOutcome {
  applied: boolean;
  message: string;
}

/** `clock.advance` params and result. */
export interface ClockAdvanceParams {
  ms: number;
}

/** `state.update` notification params. */
export interface StateUpdateParams {
  updates: StateUpdate[];
  /** Player clock (ms) when the notification was written. */
  now: number;
}

/**
 * `request.progress` notification params (since 1.1): the request `id` is
 * advancing. `progress` counts units done (bytes, for imports) and `total`
 * all of them, or null when unknown. Sent only when work advanced, so a player
 * that stopped working stops sending it.
 */
export interface RequestProgressParams {
  id: RpcId;
  progress: number;
  total: number | null;
}

/** `log` notification params. */
export interface LogParams {
  level: "debug" | "info" | "warn" | "error";
  message: string;
}

/** Whether two protocol versions can talk (same major). */
export function isCompatibleVersion(a: string, b: string): boolean {
  return a.split(".")[0] === b.split(".")[0];
}

/**
 * Methods and notifications of the player protocol (docs/player-protocol.md).
 * @module
 */
import type { NormalizedAction } from "./actions.ts";
import type { RpcId } from "./jsonrpc.ts";
import type { StateUpdate } from "./state.ts";

/**
 * The protocol version this build speaks; majors must match. 1.1 added
 * `request.progress` and `capabilities.progress` (imports run beside other requests);
 * 1.2 added `media.locate` and `camera.frame` (thumbnails and camera pictures);
 * 1.3 added `output.frame` (the output's picture).
 */
export const PLAYER_PROTOCOL_VERSION = "1.3";

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
  /** Since 1.2. */
  MEDIA_LOCATE: "media.locate",
  /** Since 1.2. */
  CAMERA_FRAME: "camera.frame",
  /** Since 1.3. */
  OUTPUT_FRAME: "output.frame",
} as const;

/** `media.locate` params: a file of a Project (null: the active one). */
export interface MediaLocateParams {
  projectId: string | null;
  fileId: string;
}

/** `media.locate` result: where the file's bytes are on this machine, as they are now. */
export interface MediaLocateResult {
  /** Absolute path the service may read. */
  path: string;
  size: number;
  /** Last modification, ms since the epoch. */
  modifiedAt: number;
}

/** `camera.frame` params: a camera's device id (never `default`: the service resolves it). */
export interface CameraFrameParams {
  cameraId: string;
}

/** `camera.frame` result: a picture the camera just took, in a file the service may read. */
export interface CameraFrameResult {
  /** Absolute path of a PNG or JPEG file, replaced whole (never written in place). */
  path: string;
  /** Wall time of the capture, ms since the epoch. */
  capturedAt: number;
}

/**
 * `output.frame` result (1.3): the picture the output shows now, once every
 * layer shows its frame, in a PNG file the service may read (replaced whole).
 */
export interface OutputFrameResult {
  path: string;
  /** Player clock (ms) of the picture. */
  at: number;
  width: number;
  height: number;
}

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

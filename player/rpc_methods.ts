/**
 * The player's protocol methods: one handler per method, each taking the
 * request's params and context. `rpc_server.ts` runs them in order; a
 * handler returns a value, a promise (it holds the requests after it) or a
 * `Beside` (its slow part runs beside them). Each parses its params first
 * (`rpc_params.ts`): bad ones are answered -32602 naming the field.
 * @module
 */
import type { ActionParams, NormalizedAction } from "../protocol/actions.ts";
import { RpcError, RpcErrorCode, type RpcId } from "../protocol/jsonrpc.ts";
import {
  type ApprovalRequestResult,
  type EditApplyParams,
  type HeartbeatResult,
  type InitializeResult,
  isCompatibleVersion,
  Method,
  type MethodName,
  type MethodResult,
  PLAYER_PROTOCOL_VERSION,
} from "../protocol/methods.ts";
import type { StateUpdate } from "../protocol/state.ts";
import { PLAYER_INFO, type PlayerApp } from "./app.ts";
import type { FollowingClock, VirtualClock } from "./clock.ts";
import { parseActionRun, parseParams } from "./rpc_params.ts";
import { SETTING_DEFAULTS } from "../protocol/settings.ts";
import { Beside } from "./beside.ts";
import { runActionBatch } from "./rpc_batch.ts";
import { LateActions, type Lateness, latenessOf, ON_TIME } from "./actions/late.ts";
import { toErrorObject } from "./rpc_errors.ts";
import { importShow } from "./show/mod.ts";
import { probeFile } from "./media/probe_file.ts";
import { captureProjects, replaceProjects } from "./snapshot_state.ts";

/** Options of the methods (those of `servePlayer`). */
export interface MethodOptions {
  /** When set, `clock.advance` is offered and moves this clock. */
  virtualClock?: VirtualClock;
  /** The real-time clock `clock.shift` moves (absent: a virtual clock, which is not shifted). */
  followingClock?: FollowingClock;
  /** How the headless player answers approval requests (it has no screen to ask on); absent: the setting's default. */
  approval?: ApprovalRequestResult["decision"];
  /**
   * The machine's clock, Unix ms, that an action's `due` is read on (default `Date.now`: the
   * service on the same machine wrote it on the same clock); tests give a virtual one.
   */
  wallClock?: () => number;
  /** Where the actions run after their time are counted (default: a count of its own). */
  lateActions?: LateActions;
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

/** The progress figures of the order, as the server counts them (a `heartbeat` answer less the output's). */
export type OrderFigures = Omit<HeartbeatResult, "output">;

/** The session state the handlers share with the server. */
export interface Session {
  isInitialized: boolean;
  /** The order's figures now; the server answers `heartbeat` beside the order with them. */
  figures(): OrderFigures;
}

/** One method's handler. */
export type MethodHandler = (params: unknown, context: MethodContext) => unknown;

/** What a handler of `M` answers: its result, at once, later, or after work beside the order. */
type Answer<M extends MethodName> =
  | MethodResult<M>
  | Promise<MethodResult<M>>
  | Beside<MethodResult<M>>;

/** A handler of every method, each answering its method's result (`protocol/methods.ts`). */
type Handlers = { [M in MethodName]: (params: unknown, context: MethodContext) => Answer<M> };

/**
 * The handlers of every method of the protocol (`Method`), by name (an object
 * without a prototype: no `toString` method).
 */
// long: the table of the protocol's methods, one short handler each
export function playerMethods(
  app: PlayerApp,
  session: Session,
  options: MethodOptions,
): Record<string, MethodHandler> {
  const wallClock = options.wallClock ?? Date.now;
  const lates = options.lateActions ?? new LateActions();
  /** The lateness of an action due at `due`, counted (none without `due`). */
  const lateness = (due: number | undefined): Lateness | undefined => {
    if (due === undefined) return undefined;
    const late = latenessOf(due, wallClock());
    lates.count(late);
    return late;
  };
  const handlers: Handlers = {
    [Method.INITIALIZE]: (params) => {
      const { protocolVersion, forwardEditorEdits } = parseParams(Method.INITIALIZE, params);
      if (!isCompatibleVersion(protocolVersion, PLAYER_PROTOCOL_VERSION)) {
        throw new RpcError(
          RpcErrorCode.INVALID_REQUEST,
          `Protocol version ${protocolVersion} is not supported: this player speaks ${PLAYER_PROTOCOL_VERSION}`,
        );
      }
      session.isInitialized = true;
      app.editorForward.initialized(forwardEditorEdits === true);
      const result: InitializeResult = {
        protocolVersion: PLAYER_PROTOCOL_VERSION,
        player: { ...PLAYER_INFO },
        capabilities: { virtualClock: options.virtualClock !== undefined, progress: true },
      };
      return result;
    },
    [Method.STATE_GET]: (params) => {
      parseParams(Method.STATE_GET, params);
      return app.snapshot();
    },
    [Method.ACTION_RUN]: (params) => runActionParams(app, params, lateness),
    [Method.ACTION_BATCH]: (params) =>
      runActionBatch(
        params,
        (action) => runActionParams(app, action, lateness),
        (error) => toErrorObject(error, app.store.dataDir),
      ),
    [Method.EDIT_APPLY]: (params, context) => {
      const p = parseParams(Method.EDIT_APPLY, params);
      // Each edit's params are checked against the edit catalog by `parseEdits`.
      const request: EditApplyParams = { projectId: p.projectId, edits: p.edits };
      if (p.isUpload) request.isUpload = true;
      if (p.idempotencyKey !== undefined) request.idempotencyKey = p.idempotencyKey;
      if (p.seed !== undefined) request.seed = p.seed;
      return app.startEdits(request, { onProgress: context.progress, signal: context.signal });
    },
    [Method.PROJECTS_RELOAD]: (params) => {
      parseParams(Method.PROJECTS_RELOAD, params);
      return app.reload();
    },
    [Method.PROJECTS_CAPTURE]: (params) => {
      parseParams(Method.PROJECTS_CAPTURE, params);
      return captureProjects(app); // in the order: between two edits
    },
    [Method.PROJECTS_REPLACE]: (params) => {
      return replaceProjects(app, parseParams(Method.PROJECTS_REPLACE, params));
    },
    [Method.CLOCK_ADVANCE]: (params) => {
      const clock = options.virtualClock;
      if (!clock) {
        throw new RpcError(RpcErrorCode.METHOD_NOT_FOUND, "clock.advance needs a virtual clock");
      }
      clock.advance(parseParams(Method.CLOCK_ADVANCE, params).ms);
      // Positions moved without an update: the saved ones must follow the clock.
      app.liveChanged();
      return { now: clock.now() };
    },
    [Method.CLOCK_SHIFT]: (params) => {
      const { shiftMs } = parseParams(Method.CLOCK_SHIFT, params);
      options.followingClock?.shift(shiftMs);
      return { shiftMs: options.followingClock?.shiftMs ?? null };
    },
    [Method.SHUTDOWN]: (params) => {
      parseParams(Method.SHUTDOWN, params);
      return {};
    },
    [Method.APPROVAL_REQUEST]: (params) => {
      const p = parseParams(Method.APPROVAL_REQUEST, params);
      console.error(
        `[player] approval requested for ${p.deviceName || "a local client"} (${p.address}): ${
          options.approval ?? SETTING_DEFAULTS.approval
        }`,
      );
      const result: ApprovalRequestResult = {
        decision: options.approval ?? SETTING_DEFAULTS.approval,
      };
      return result;
    },
    [Method.MEDIA_LOCATE]: (params) => {
      const p = parseParams(Method.MEDIA_LOCATE, params);
      // A stat of the file: beside the order, so an action never waits on the disk for it.
      return new Beside(app.locateFile(p.projectId, p.fileId).then((r) => () => r));
    },
    [Method.MEDIA_PROBE]: (params) => {
      const { path } = parseParams(Method.MEDIA_PROBE, params);
      // Header reads of a file (1.18): beside the order, as `media.locate`.
      return new Beside(probeFile(path).then((r) => () => r));
    },
    [Method.CAMERA_FRAME]: (params) => {
      const p = parseParams(Method.CAMERA_FRAME, params);
      // A capture (up to seconds through ffmpeg) runs beside the order; actions go on.
      return new Beside(app.cameraFrame(p.cameraId).then((r) => () => r));
    },
    [Method.OUTPUT_FRAME]: (params) => {
      const p = parseParams(Method.OUTPUT_FRAME, params);
      // The page answers once every layer shows its frame: beside the order.
      return new Beside(app.outputFrame(p ?? {}).then((r) => () => r));
    },
    [Method.OUTPUT_DISPLAYS]: (params) => {
      parseParams(Method.OUTPUT_DISPLAYS, params);
      // One `xrandr` run and the window's last move: beside the order.
      return new Beside(app.displays().then((r) => () => r));
    },
    [Method.HEARTBEAT]: (params) => {
      parseParams(Method.HEARTBEAT, params);
      const result: HeartbeatResult = { ...session.figures(), output: app.output?.stats ?? null };
      return result;
    },
    [Method.SHOW_IMPORT]: (params, context) => {
      const p = parseParams(Method.SHOW_IMPORT, params);
      // Checks and extraction run beside the order; the rename and the adoption join it.
      return importShow(app, p, { progress: context.progress, signal: context.signal });
    },
    [Method.TIMECODE_SAMPLE]: (params) => {
      return app.timecode(parseParams(Method.TIMECODE_SAMPLE, params));
    },
    [Method.MIDI_SEND]: (params) => {
      const { messages } = parseParams(Method.MIDI_SEND, params);
      app.output?.midi.send(messages); // no output: no ports, nothing sent
      return {};
    },
    [Method.EDITOR_ANSWER]: (params) => {
      app.editorForward.answered(parseParams(Method.EDITOR_ANSWER, params));
      return {};
    },
    [Method.PAIRING_SHOW]: (params) => {
      const p = parseParams(Method.PAIRING_SHOW, params);
      console.error(`[player] pairing code ${p.otp}, valid until ${p.expiresAt}`);
      return {};
    },
  };
  return Object.assign(Object.create(null), handlers);
}

/**
 * Runs the params of one `action.run` (or one action of a batch): checked at the door, the
 * action's own params against its catalog entry by `runAction`; its lateness (`due`, 1.14) read
 * by `lateness` here, where its Clips start.
 * @throws {RpcError} INVALID_PARAMS; {Refusal} when the action is refused
 */
function runActionParams(
  app: PlayerApp,
  params: unknown,
  lateness: (due: number | undefined) => Lateness | undefined,
) {
  const p = parseActionRun(params);
  const late = lateness(p.due);
  const action: NormalizedAction = {
    name: p.name,
    params: p.params as ActionParams,
    projectId: p.projectId,
  };
  if (p.velocity !== undefined) action.velocity = p.velocity;
  const when = p.at === undefined ? late : { ...(late ?? ON_TIME), at: p.at };
  return app.runActionNow(action, p.idempotencyKey, when);
}

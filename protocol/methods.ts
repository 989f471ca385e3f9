/**
 * Methods and notifications of the player protocol (docs/player-protocol.md),
 * declared once as zod schemas with their inferred types: the player checks
 * every request's params with `METHODS` (`player/rpc_params.ts`), and the
 * service types its calls by it and checks the results it reads where that
 * is cheap (`checked`: small answers of rare calls; never the snapshot or the
 * answers of actions, the hot path). Unknown fields are ignored on both
 * sides (a minor protocol version may add some): the schemas strip them
 * (but `edit.apply`'s result, which the service passes on as it is).
 * @module
 */
import { z } from "zod";
import { RpcError } from "./jsonrpc.ts";
import { EditApplyParams, EditApplyResult } from "./edits/apply.ts";
import { Snapshot, StateUpdate } from "./state.ts";
import { LocalMidiMessage, MIDI_BATCH_MAX, MIDI_PORTS_MAX, OutputStats } from "./output.ts";
import { OutputDisplays } from "./displays.ts";
import { velocitySchema } from "./action_rules.ts";
import { PICTURE_FORMATS } from "./pictures.ts";
import { FileKind } from "./model.ts";
import { TimecodeSampleParams, TimecodeState } from "./timecode.ts";

export { EditApplyParams, EditApplyResult } from "./edits/apply.ts";

/**
 * The protocol version this build speaks; majors must match. 1.1 added
 * `request.progress` and `capabilities.progress` (imports run beside other requests);
 * 1.2 added `media.locate` and `camera.frame` (thumbnails and camera pictures);
 * 1.3 added `output.frame` (the output's picture); 1.4 added `shown` in `appState.editor`
 * and the `editor-shown` update (the editor window on the show machine shows the editor), and
 * `editor-closed` when that window goes away; 1.5 added `heartbeat`, answered at once beside the
 * order, with the player's progress figures, the recording's figures in `appState.recording`
 * and `appState.output` with its `output-scale-changed` update (docs/player-protocol.md);
 * 1.6 added `show.import` (a show file becomes a Project) and the error -32008; 1.7 added
 * `output.displays` (the machine's displays) and `outputDisplay` in `appState`;
 * 1.8 added `output.frame` params `size`, `format` and `quality` (a smaller picture the
 * output's page encodes itself, for previews) and the result's `format`;
 * 1.9 added `timecode.sample` (the active Song chases timecode) and `timecode` in `appState`;
 * 1.10 added `midi.send` and the `midi.local` notification (local MIDI ports, through the
 * output's browser); 1.11 added `action.batch` (the actions of one write in one request);
 * 1.12 added `seed` in `edit.apply` (the ids of a rig group's log entry); 1.13 added
 * `Clip.generator`, the `generator` kind and `Preset.vertexCode`; 1.14 added `due` in
 * `action.run` (and each action of `action.batch`): an action run late starts its Clips where
 * they would be had it run on time; 1.15 added `at` in `action.run`: the show time a rig group
 * decided the action at, which names the recording it starts alike on every rig, `clock.shift`
 * (the show clock moves the player's real-time clock) and `frameLagMs` in the heartbeat's output;
 * 1.16 added `projects.capture` and `projects.replace` (a rig group's log snapshots);
 * 1.17 added `forwardEditorEdits` in `initialize`, the `editor.edit` notification and
 * `editor.answer`: in a rig group the editor page's edits go through the service (its log);
 * 1.18 added `media.probe` (a file's format checked before a rig group copies it to every rig).
 */
export const PLAYER_PROTOCOL_VERSION = "1.18";

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
  /** Since 1.5: answered at once, beside the order. */
  HEARTBEAT: "heartbeat",
  /** Since 1.6: checked and extracted beside the order, committed in it. */
  SHOW_IMPORT: "show.import",
  /** Since 1.7. */
  OUTPUT_DISPLAYS: "output.displays",
  /** Since 1.9. */
  TIMECODE_SAMPLE: "timecode.sample",
  /** Since 1.10. */
  MIDI_SEND: "midi.send",
  /** Since 1.11: several `action.run` in one request, each with its own outcome. */
  ACTION_BATCH: "action.batch",
  /** Since 1.15: the player's clock follows the rig group's show clock (docs/rigs.md). */
  CLOCK_SHIFT: "clock.shift",
  /** Since 1.16: what a rig group's log made (every Project, the user presets), whole. */
  PROJECTS_CAPTURE: "projects.capture",
  /** Since 1.16: replaces every Project and the user presets with a captured state at once. */
  PROJECTS_REPLACE: "projects.replace",
  /** Since 1.17: the service's answer to an `editor.edit` the player forwarded. */
  EDITOR_ANSWER: "editor.answer",
  /** Since 1.18: a file measured as `file.import` would, nothing imported (beside the order). */
  MEDIA_PROBE: "media.probe",
} as const;

/** A method of the protocol. */
export type MethodName = (typeof Method)[keyof typeof Method];

/** Params of a method without any: absent, or an object whose fields are ignored. */
export const NoParams = z.object({}).optional();
/** The result of a method that answers nothing but that it did it: `{}`. */
export const EmptyResult = z.object({});

/** A Project id as the service sends it: null (or absent) means the active Project. */
const ProjectId = z.string().min(1).nullable().default(null);
/** A retry key (protocol 1.2, docs/player-protocol.md "Retry keys"). */
/** The longest retry key, in UTF-16 code units. */
export const MAX_IDEMPOTENCY_KEY = 512;
const IdempotencyKey = z.string().max(MAX_IDEMPOTENCY_KEY);
/** A name and version, of the service or the player. */
const Peer = z.object({ name: z.string(), version: z.string() });

/** `initialize` params. */
export const InitializeParams = z.object({
  protocolVersion: z.string(),
  /** Who asks; optional (a player needs nothing of it). */
  client: Peer.optional(),
  /**
   * Since 1.17: the editor page's edits are sent to the service (`editor.edit`) instead of
   * applied by the player (a rig group: they go through its log). Absent means false.
   */
  forwardEditorEdits: z.boolean().optional(),
});

/** `initialize` result. */
export const InitializeResult = z.object({
  protocolVersion: z.string(),
  player: Peer,
  capabilities: z.object({
    /** `clock.advance` is available (the player runs on a virtual clock). */
    virtualClock: z.boolean(),
    /**
     * Since 1.1: the player copies imported files beside other requests and
     * sends `request.progress` while it does. Absent means false.
     */
    progress: z.boolean().optional(),
  }),
});

/** The farthest a JavaScript Date reaches either side of 1970, ms (`toISOString` throws past it). */
export const MAX_DATE_MS = 8.64e15;

/**
 * `action.run` params: an action of the catalog, named, base-shifted and
 * typed by the service (`NormalizedAction`), with its retry key. Its own
 * params are checked against the action's catalog entry by the player.
 */
export const ActionRunParams = z.object({
  name: z.string(),
  // An object here; its fields are checked against the action's catalog entry.
  params: z.looseObject({}).default({}),
  projectId: ProjectId,
  /** `VELOCITY`'s range; present only for the velocity actions. Absent means full velocity. */
  velocity: velocitySchema().optional(),
  idempotencyKey: IdempotencyKey.optional(),
  /**
   * Since 1.14: when the action was due, Unix ms (the service and the player share the machine's
   * clock). Run after it, the Clips (and Song) it starts begin where they would be had it run
   * then, up to `ACTION_LATE_MAX_MS` late. Absent: now.
   */
  due: z.number().optional(),
  /**
   * Since 1.15: when a rig group decided the action, Unix ms (its show time, the same on every
   * rig): what the action names by the time (a recording's file) is named by it, so that every rig
   * names it alike. Absent: the player's own clock. Within a JavaScript Date's range.
   */
  at: z.number().min(-MAX_DATE_MS).max(MAX_DATE_MS).optional(),
});

/** How late (ms) an action with `due` may run and still start its Clips where they would be. */
export const ACTION_LATE_MAX_MS = 5000;

/** `action.run` result: whether state changed and a one-line account of what was done. */
export const ActionOutcome = z.object({ applied: z.boolean(), message: z.string() });

/** The most actions one `action.batch` carries. */
export const ACTION_BATCH_MAX = 256;

/** `action.batch` params (1.11): actions run in order, each as its own `action.run`. */
export const ActionBatchParams = z.object({
  // Each checked as `ActionRunParams` on its own: a bad one is refused alone.
  actions: z.array(z.unknown()).min(1).max(ACTION_BATCH_MAX),
});

/** `action.batch` result: one entry per action, in order, its outcome or its refusal. */
export const ActionBatchResult = z.object({
  outcomes: z.array(
    z.union([
      ActionOutcome,
      z.object({
        error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }),
      }),
    ]),
  ),
});

/** `clock.advance` params. */
export const ClockAdvanceParams = z.object({ ms: z.number().min(0) });
/** `clock.advance` result: the virtual clock's reading after the move. */
export const ClockAdvanceResult = z.object({ now: z.number() });

/** `clock.shift` params: the service's show clock's offset moved since it synced, ms. */
export const ClockShiftParams = z.object({ shiftMs: z.number().finite() });
/** `clock.shift` result: the shift the clock follows now; null on a virtual clock (not shifted). */
export const ClockShiftResult = z.object({ shiftMs: z.number().nullable() });

/** `media.locate` params: a file of a Project (null: the active one). */
export const MediaLocateParams = z.object({ projectId: ProjectId, fileId: z.string().min(1) });

/** `media.locate` result: where the file's bytes are on this machine, as they are now. */
export const MediaLocateResult = z.object({
  /** Absolute path the service may read. */
  path: z.string().min(1),
  size: z.number().min(0),
  /** Last modification, ms since the epoch. */
  modifiedAt: z.number(),
});

/** `media.probe` params (since 1.18): a file on this machine, as `file.import`'s `path`. */
export const MediaProbeParams = z.object({ path: z.string().min(1) });

/**
 * `media.probe` result (since 1.18): what `file.import` would measure of the file, read from its
 * bytes (never its name). A file `file.import` would refuse is refused with the same error
 * (-32003 unsupported, -32004 corrupt, -32001 no such file).
 */
export const MediaProbeResult = z.object({
  kind: FileKind,
  mimeType: z.string(),
  width: z.number().int().positive().nullable(),
  height: z.number().int().positive().nullable(),
  /** Seconds; null for an image. */
  duration: z.number().min(0).nullable(),
  size: z.number().int().min(0),
});

/** `camera.frame` params: a camera's device id (never `default`: the service resolves it). */
export const CameraFrameParams = z.object({ cameraId: z.string().min(1) });

/** `camera.frame` result: a picture the camera just took, in a file the service may read. */
export const CameraFrameResult = z.object({
  /** Absolute path of a PNG or JPEG file, replaced whole (never written in place). */
  path: z.string().min(1),
  /** Wall time of the capture, ms since the epoch. */
  capturedAt: z.number(),
});

/**
 * `output.frame` params (1.8): the picture's longer side in pixels (absent: the output's
 * size), its format (absent: PNG) and JPEG quality (absent: 85). A 1.7 player ignores
 * them and answers a full-size PNG: the service reads the result's `format`.
 */
export const OutputFrameParams = z.object({
  size: z.number().int().min(16).max(8192).optional(),
  format: z.enum(PICTURE_FORMATS).optional(),
  quality: z.number().int().min(1).max(100).optional(),
}).optional();
/** What an `output.frame` request asks for (1.8). */
export type OutputFrameAsk = NonNullable<z.output<typeof OutputFrameParams>>;

/**
 * `output.frame` result (1.3): the picture the output shows now, once every
 * layer shows its frame, in a PNG file the service may read (replaced whole).
 */
export const OutputFrameResult = z.object({
  path: z.string().min(1),
  /** Player clock (ms) of the picture. */
  at: z.number(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  /** The file's format (1.8); absent: PNG. */
  format: z.enum(PICTURE_FORMATS).optional(),
});

/**
 * `heartbeat` result (1.5): the player's progress, answered at once beside the
 * order (even while an asynchronous request holds it), so the service tells a
 * busy player from a hung one by progress, not by how fast one answer comes.
 */
export const HeartbeatResult = z.object({
  /** Requests answered since the session began (a counter that moves while the player works). */
  handled: z.number().int().min(0),
  /** Requests read and waiting their turn in the order. */
  queued: z.number().int().min(0).default(0),
  /** Requests whose slow part runs beside the order (imports copying). */
  beside: z.number().int().min(0).default(0),
  /** The request that holds the order now (an asynchronous one), and for how long, ms. */
  busy: z.object({ method: z.string(), forMs: z.number().min(0) }).nullable().default(null),
  /** How the output draws; null when no output runs (fields a later minor adds are dropped). */
  output: z.object(OutputStats.shape).nullable().default(null),
});

/** `show.import` params: a show file (`protocol/show_file.ts`) on this machine to import. */
export const ShowImportParams = z.object({
  /** Absolute path of the zip; the player reads it and never changes it. */
  path: z.string().min(1),
  /** Replace the Project of the same id (it goes as a delete does); else a clashing id is renamed. */
  replace: z.boolean().default(false),
  /**
   * With `replace`: replace the Project even while any of its Clips or its Song plays or is
   * paused (it stops); else that is refused, as `project.delete` is.
   */
  force: z.boolean().default(false),
  /** The service staged the file from an upload: the messages speak of the upload, not the path. */
  isUpload: z.boolean().default(false),
});

/** `show.import` result: the Project the show file became. */
export const ShowImportResult = z.object({
  projectId: z.string(),
  name: z.string(),
  /** The id the show file gave, when it was taken and this one was chosen; else null. */
  renamedFrom: z.string().nullable(),
  /** Whether a Project of that id was replaced. */
  replaced: z.boolean(),
  /** The user presets added, and those whose id clashed: `{from, to}`. */
  presetsAdded: z.array(z.string()),
  presetsRenamed: z.array(z.object({ from: z.string(), to: z.string() })),
  /** The bytes of the media extracted. */
  mediaBytes: z.number().int().nonnegative(),
});

/** `approval.request` params: a local client asks to connect without credentials. */
export const ApprovalRequestParams = z.object({
  requestId: z.string(),
  address: z.string(),
  deviceName: z.string(),
});

/** `approval.request` result: `wait` means the operator decides (through the service's local API). */
export const ApprovalRequestResult = z.object({ decision: z.enum(["approve", "deny", "wait"]) });

/** `pairing.show` params: a one-time code the application may show on screen. */
export const PairingShowParams = z.object({ otp: z.string(), expiresAt: z.string() });

/**
 * `midi.send` params (since 1.10): MIDI messages (bytes) for the output's local ports by name
 * (null: every output port). Without an output, or with its page away, nothing is sent.
 */
export const MidiSendParams = z.object({
  messages: z.array(LocalMidiMessage.extend({ port: z.string().max(256).nullable() }))
    .max(MIDI_BATCH_MAX),
});

/**
 * What a rig group's log made on a rig (`projects.capture`, since 1.16), the state of its
 * snapshots (docs/rigs.md): every Project of the data dir as its `project.json` holds it (with
 * the retry keys its edits were applied with, `appliedKeys`), the user presets, and the Projects
 * closed. Not in it: media files (copied between rigs by hash), settings, the active Project.
 */
export const ProjectsState = z.object({
  projects: z.array(z.looseObject({ id: z.string() })),
  presets: z.array(z.unknown()),
  closedProjectIds: z.array(z.string()),
});

/** `projects.replace` result: how many Projects there are now. */
export const ProjectsReplaceResult = z.object({ projects: z.number().int() });

/**
 * `editor.answer` params (since 1.17): what the service made of the `editor.edit` of `id`,
 * its result, or its refusal by the service's stable code (`GROUP_NO_QUORUM`, `EDIT_REFUSED`,
 * `INVALID_SHADER` with its `problems`...).
 */
export const EditorAnswerParams = z.object({
  id: z.number().int().nonnegative(),
  /** `edit.apply`'s result, read loosely: a field this player does not know never loses it. */
  result: z.looseObject({
    revision: z.number().int(),
    edits: z.array(z.looseObject({ message: z.string() })),
  }).optional(),
  error: z.object({
    code: z.string(),
    message: z.string(),
    problems: z.array(z.unknown()).optional(),
  }).optional(),
});

/** One method: its params, its result, and whether the service checks the result it reads. */
export interface MethodSchemas {
  params: z.ZodType;
  result: z.ZodType;
  checked: boolean;
}

/** Every method's params and result, by method name. */
export const METHODS = {
  [Method.INITIALIZE]: { params: InitializeParams, result: InitializeResult, checked: true },
  // The snapshot is large and read once per start; a desktop player may add fields.
  [Method.STATE_GET]: { params: NoParams, result: Snapshot, checked: false },
  // The hottest path: its answer is read as it is.
  [Method.ACTION_RUN]: { params: ActionRunParams, result: ActionOutcome, checked: false },
  [Method.ACTION_BATCH]: { params: ActionBatchParams, result: ActionBatchResult, checked: false },
  [Method.EDIT_APPLY]: { params: EditApplyParams, result: EditApplyResult, checked: false },
  [Method.PROJECTS_RELOAD]: { params: NoParams, result: Snapshot, checked: false },
  [Method.CLOCK_ADVANCE]: {
    params: ClockAdvanceParams,
    result: ClockAdvanceResult,
    checked: true,
  },
  [Method.SHUTDOWN]: { params: NoParams, result: EmptyResult, checked: false },
  [Method.APPROVAL_REQUEST]: {
    params: ApprovalRequestParams,
    result: ApprovalRequestResult,
    checked: true,
  },
  [Method.PAIRING_SHOW]: { params: PairingShowParams, result: EmptyResult, checked: false },
  [Method.MEDIA_LOCATE]: { params: MediaLocateParams, result: MediaLocateResult, checked: true },
  [Method.CAMERA_FRAME]: { params: CameraFrameParams, result: CameraFrameResult, checked: true },
  [Method.OUTPUT_FRAME]: {
    params: OutputFrameParams,
    result: OutputFrameResult,
    checked: true,
  },
  // Small, once a second: checked, so the figures /health shows are the declared ones.
  [Method.HEARTBEAT]: { params: NoParams, result: HeartbeatResult, checked: true },
  [Method.SHOW_IMPORT]: { params: ShowImportParams, result: ShowImportResult, checked: true },
  [Method.OUTPUT_DISPLAYS]: { params: NoParams, result: OutputDisplays, checked: true },
  // Up to 15 a second while code runs: read as it is.
  [Method.TIMECODE_SAMPLE]: { params: TimecodeSampleParams, result: TimecodeState, checked: false },
  // Feedback to pads, as often as Clips change: read as it is.
  [Method.MIDI_SEND]: { params: MidiSendParams, result: EmptyResult, checked: false },
  // Four a second at most in a rig group: small, checked.
  [Method.CLOCK_SHIFT]: { params: ClockShiftParams, result: ClockShiftResult, checked: true },
  // A snapshot's state (every Project): large and rare; the player checks each Project.
  [Method.PROJECTS_CAPTURE]: { params: NoParams, result: ProjectsState, checked: false },
  [Method.PROJECTS_REPLACE]: {
    params: ProjectsState,
    result: ProjectsReplaceResult,
    checked: true,
  },
  // One per edit typed in the output's editor page, in a rig group.
  [Method.EDITOR_ANSWER]: { params: EditorAnswerParams, result: EmptyResult, checked: false },
  // Once per import in a rig group: small, checked.
  [Method.MEDIA_PROBE]: { params: MediaProbeParams, result: MediaProbeResult, checked: true },
} as const satisfies Record<MethodName, MethodSchemas>;

/** The params of `method` as the service sends them (fields with a default may be left out). */
export type MethodParams<M extends MethodName> = z.input<(typeof METHODS)[M]["params"]>;
/** The params of `method` once the player has parsed them (defaults filled in). */
export type ParsedParams<M extends MethodName> = z.output<(typeof METHODS)[M]["params"]>;
/** The result of `method`. */
export type MethodResult<M extends MethodName> = z.output<(typeof METHODS)[M]["result"]>;

/** Notification names, player to server. */
export const Notification = {
  STATE_UPDATE: "state.update",
  LOG: "log",
  /** Since 1.1: a long request is advancing; the service extends its deadline. */
  REQUEST_PROGRESS: "request.progress",
  /** Since 1.10: the output's local MIDI ports changed, or their input. */
  MIDI_LOCAL: "midi.local",
  /** Since 1.17: an edit of the editor page, for the service to run (`forwardEditorEdits`). */
  EDITOR_EDIT: "editor.edit",
} as const;

/**
 * `editor.edit` notification params (since 1.17): the edits the editor page's message stands
 * for, built by the player in their turn; `id` names the `editor.answer` that answers them.
 */
export const EditorEditParams = EditApplyParams.pick({ projectId: true, edits: true }).extend({
  id: z.number().int().nonnegative(),
});

/** `state.update` notification params (read unchecked by the service: the hot path). */
export const StateUpdateParams = z.object({
  updates: z.array(StateUpdate),
  /** Player clock (ms) when the notification was written. */
  now: z.number(),
});

/**
 * `request.progress` notification params (since 1.1): the request `id` is
 * advancing. `progress` counts units done (bytes, for imports) and `total`
 * all of them, or null when unknown. Sent only when work advanced, so a player
 * that stopped working stops sending it.
 */
export const RequestProgressParams = z.object({
  id: z.union([z.number(), z.string()]),
  progress: z.number(),
  total: z.number().nullable().default(null),
});

/**
 * `midi.local` notification params (since 1.10): the local MIDI ports the output's page lists
 * now (`ports`; empty lists when the output or its page went away, `error` why none), or
 * messages received on its input ports (`input`), bytes and port names as Web MIDI gives them.
 */
export const MidiLocalParams = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("ports"),
    inputs: z.array(z.string()).max(MIDI_PORTS_MAX),
    outputs: z.array(z.string()).max(MIDI_PORTS_MAX),
    error: z.string().nullable(),
  }),
  z.object({ type: z.literal("input"), messages: z.array(LocalMidiMessage).max(MIDI_BATCH_MAX) }),
]);

/** `log` notification params. */
export const LogParams = z.object({
  level: z.enum(["debug", "info", "warn", "error"]),
  message: z.string(),
});

/** Derived types. */
export type InitializeParams = z.infer<typeof InitializeParams>;
export type InitializeResult = z.infer<typeof InitializeResult>;
export type ActionRunParams = z.infer<typeof ActionRunParams>;
export type ActionOutcome = z.infer<typeof ActionOutcome>;
export type ActionBatchParams = z.infer<typeof ActionBatchParams>;
export type ActionBatchResult = z.infer<typeof ActionBatchResult>;
export type ClockAdvanceParams = z.infer<typeof ClockAdvanceParams>;
export type ClockAdvanceResult = z.infer<typeof ClockAdvanceResult>;
export type MediaLocateParams = z.infer<typeof MediaLocateParams>;
export type MediaLocateResult = z.infer<typeof MediaLocateResult>;
export type MediaProbeResult = z.infer<typeof MediaProbeResult>;
export type CameraFrameParams = z.infer<typeof CameraFrameParams>;
export type CameraFrameResult = z.infer<typeof CameraFrameResult>;
export type OutputFrameResult = z.infer<typeof OutputFrameResult>;
export type HeartbeatResult = z.infer<typeof HeartbeatResult>;
export type ShowImportParams = z.infer<typeof ShowImportParams>;
export type ShowImportResult = z.infer<typeof ShowImportResult>;
export type ApprovalRequestParams = z.infer<typeof ApprovalRequestParams>;
export type ApprovalRequestResult = z.infer<typeof ApprovalRequestResult>;
export type PairingShowParams = z.infer<typeof PairingShowParams>;
export type StateUpdateParams = z.infer<typeof StateUpdateParams>;
export type RequestProgressParams = z.infer<typeof RequestProgressParams>;
export type LogParams = z.infer<typeof LogParams>;
export type MidiSendParams = z.infer<typeof MidiSendParams>;
export type MidiLocalParams = z.infer<typeof MidiLocalParams>;
export type EditorEditParams = z.infer<typeof EditorEditParams>;
export type EditorAnswerParams = z.infer<typeof EditorAnswerParams>;
export type ProjectsState = z.infer<typeof ProjectsState>;

/**
 * `value` parsed by `schema`, or an RpcError of `code` naming the first bad
 * field under `root`: `Invalid params for action.run: params.name: Invalid input: expected string, received number`.
 * @throws {RpcError} when `value` does not fit
 */
export function parseOrRefuse(
  schema: z.ZodType,
  value: unknown,
  refusal: { code: number; what: string; root: string },
): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = [refusal.root, ...issue.path.map(String)].join(".");
  throw new RpcError(refusal.code, `Invalid ${refusal.what}: ${field}: ${issue.message}`);
}

/** Whether two protocol versions can talk (same major). */
export function isCompatibleVersion(a: string, b: string): boolean {
  return a.split(".")[0] === b.split(".")[0];
}

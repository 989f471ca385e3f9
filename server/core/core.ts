/**
 * The shared core every transport calls: it validates and normalizes
 * actions, sends them to the player, keeps the read model current from the
 * player's updates and publishes those updates on the event bus.
 *
 * `Core` is the one face of its parts, each in its own file: the player's
 * connection and readiness (`player_link.ts`), the actions
 * (`action_runner.ts`), the edits (`edit_runner.ts`), the uploads
 * (`upload_import.ts`), the requests passed to the player
 * (`player_requests.ts`) and the reads (`queries.ts`, `durations.ts`).
 * @module
 */
import type {
  CameraFrameResult,
  MediaLocateResult,
  MediaProbeResult,
  Method,
  MethodParams,
  OutputFrameResult,
  ShowImportResult,
} from "../../protocol/methods.ts";
import type { ActionRequest } from "./action_rules.ts";
import { type ActionResult, ActionRunner } from "./action_runner.ts";
import { durationOf } from "./durations.ts";
import { EditRunner } from "./edit_runner.ts";
import type { EditResult } from "./edits.ts";
import { EventBus } from "./event_bus.ts";
import { IdempotencyStore, type RetryKey } from "./idempotency.ts";
import type { PlayerConnection } from "./player_connection.ts";
import { PlayerLink } from "./player_link.ts";
import { PlayerRequests } from "./player_requests.ts";
import { Queries } from "./queries.ts";
import { ReadModel } from "./read_model.ts";
import { UploadImporter, type UploadOptions } from "./upload_import.ts";
import type { OutputDisplays } from "../../protocol/displays.ts";
import type { TimecodeState } from "../../protocol/timecode.ts";
import type { OutputStats } from "../../protocol/output.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";
export type { ActionResult } from "./action_runner.ts";
export type { UploadOptions } from "./upload_import.ts";
// Where it was declared before `player_errors.ts` (the player client's tests import it here).
export { fromPlayerError } from "./player_errors.ts";

/** Options of the core. */
export interface CoreOptions {
  /** Coalescing window of the event bus, ms. */
  coalesceMs?: number;
  /** Folder where uploads are staged before the player takes them (default: a temp folder). */
  stagingDir?: string;
  /**
   * The data dir, whose preset store's `IMPORTED` images a show export carries
   * (`<dataDir>/preset_images/`); none: the export carries no images.
   */
  dataDir?: string;
}

/** The core: the one face the operations call; its parts (above) do the work. */
export class Core {
  /** The player's state as the server knows it, kept from the player's updates. */
  readonly model: ReadModel = new ReadModel();
  /** Every read of the API, from the read model. */
  readonly queries: Queries = new Queries(this.model, () => this.isReady);
  /** Where the player's updates go out to clients. */
  readonly bus: EventBus;
  /** Keys of safe retries (`idempotency.ts`), kept across player restarts. */
  readonly idempotency: IdempotencyStore = new IdempotencyStore();
  #link: PlayerLink;
  #actions: ActionRunner;
  #edits: EditRunner;
  #uploads: UploadImporter;
  #requests: PlayerRequests;
  /** The data dir (`CoreOptions.dataDir`), or null. */
  readonly dataDir: string | null;

  /** Wires the core to a player connection. */
  constructor(player: PlayerConnection, options: CoreOptions = {}) {
    this.bus = new EventBus({ windowMs: options.coalesceMs ?? SETTING_DEFAULTS.coalesceMs });
    this.#link = new PlayerLink(player, { model: this.model, bus: this.bus });
    this.#actions = new ActionRunner(this.#link, this.idempotency);
    this.#edits = new EditRunner(this.#link, this.idempotency);
    // The editor page's edits a player forwards (a rig group's, 1.17) run as any edit.
    player.oneditoredit = (forwarded) => void this.#edits.runForwarded(forwarded);
    this.#uploads = new UploadImporter(this.#link, {
      edits: this.#edits,
      stagingDir: options.stagingDir,
    });
    this.#requests = new PlayerRequests(this.#link);
    this.dataDir = options.dataDir ?? null;
  }

  /**
   * The 5.0.0 HTTP port in use (null: off or skipped), set by the service once it is bound:
   * where a refusal of a 5.0.0 body or name on the 6.0 port points (docs/compat.md).
   */
  set v5HttpPort(port: number | null) {
    this.#actions.v5Port = port;
    this.#edits.v5Port = port;
  }

  /** The action runner (a rig group sets its `scheduler`). */
  get actions(): ActionRunner {
    return this.#actions;
  }

  /** True when the player is up and the read model holds its state. */
  get isReady(): boolean {
    return this.#link.isReady;
  }

  /** The player's handshake answer, when ready. */
  get playerInfo(): PlayerConnection["info"] {
    return this.#link.player.info;
  }

  /** How the player fares: its restarts, and its output's figures from its last heartbeat. */
  get playerHealth(): { restarts: number; output: OutputStats | null } {
    return this.#link.health;
  }

  /** @throws {CueportError} NOT_READY while the player is down */
  requireReady(): void {
    this.#link.requireReady();
  }

  /** @throws {CueportError} API_ACCESS_DENIED when the player's plan has no API access */
  requireApiAccess(): void {
    this.#link.requireApiAccess();
  }

  /**
   * Runs one action from any transport.
   * @throws {CueportError} INVALID_MESSAGE, NOT_READY, NOT_FOUND (project), ACTION_FAILED (refused)
   */
  runAction(request: ActionRequest, retry?: RetryKey): Promise<ActionResult> {
    return this.#actions.run(request, retry);
  }

  /**
   * Seconds of a Clip's media, or of a Song's audio (its timeline when it has
   * none), as the player counts them; `undefined` when there is no such Clip
   * or Song, `null` when the Song has nothing to seek. (What a seek in seconds
   * is a fraction of: the 5.0.0 seeks.)
   * @throws {CueportError} NOT_READY while the player is down
   */
  durationOf(
    kind: "clip" | "song",
    id: string,
    projectId: string | null,
  ): number | null | undefined {
    this.requireReady();
    return durationOf(this.model, { kind, id, projectId });
  }

  /** The edits of this rig: alone (to the player) or through its group's log (docs/rigs.md). */
  get edits(): EditRunner {
    return this.#edits;
  }

  /**
   * Applies one edit or an atomic batch (body of `POST /api/v1/edit`).
   * @throws {CueportError} INVALID_MESSAGE, LOCAL_ONLY, NOT_READY, NOT_FOUND, EDIT_REFUSED,
   * UNSUPPORTED_MEDIA, CORRUPT_MEDIA
   */
  runEdit(
    body: unknown,
    options: { isLocal: boolean; isUpload?: boolean; retry?: RetryKey },
  ): Promise<EditResult> {
    return this.#edits.run(body, options);
  }

  /**
   * Stages an uploaded file (streamed, size-limited) and imports it into a
   * Project; clients see `upload-progress` updates while it arrives.
   * @throws {CueportError} PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA, CORRUPT_MEDIA, and those of runEdit
   */
  importUpload(body: AsyncIterable<Uint8Array>, options: UploadOptions): Promise<EditResult> {
    return this.#uploads.run(body, options);
  }

  /** Reloads projects and media from disk; clients get a `full` update. */
  reload(): Promise<void> {
    return this.#requests.reload();
  }

  /** Where uploads are staged (`CoreOptions.stagingDir`); a temp folder when none was given. */
  stagingFolder(): Promise<string> {
    return this.#uploads.stagingFolder();
  }

  /**
   * Imports a show file on this machine through the player (`show.import`, docs/projects.md).
   * @throws {CueportError} NOT_READY, INVALID_SHOW_FILE (what is wrong, nothing kept), DISK_FULL
   */
  importShow(params: MethodParams<typeof Method.SHOW_IMPORT>): Promise<ShowImportResult> {
    return this.#requests.importShow(params);
  }

  /**
   * Where a Project's file is on disk, from the player (`media.locate`).
   * @throws {CueportError} NOT_READY, NOT_FOUND, UNAVAILABLE (a player without it)
   */
  locateFile(projectId: string, fileId: string): Promise<MediaLocateResult> {
    return this.#requests.locateFile(projectId, fileId);
  }

  /**
   * The output's picture now, from the player (`output.frame`); see `PlayerRequests.outputFrame`.
   * @throws {CueportError} NOT_READY, NO_OUTPUT (no output runs: the output setting)
   */
  outputFrame(params: MethodParams<typeof Method.OUTPUT_FRAME>): Promise<OutputFrameResult> {
    return this.#requests.outputFrame(params);
  }

  /**
   * A picture a camera just took, from the player (`camera.frame`); captures
   * may take seconds.
   * @throws {CueportError} NOT_READY, NOT_FOUND, UNAVAILABLE (no ffmpeg), ACTION_FAILED (the capture failed)
   */
  cameraFrame(cameraId: string): Promise<CameraFrameResult> {
    return this.#requests.cameraFrame(cameraId);
  }

  /**
   * What the player measures of a file on this machine (`media.probe`); see
   * `PlayerRequests.probeMedia`.
   * @throws {CueportError} NOT_READY, NOT_FOUND, UNSUPPORTED_MEDIA, CORRUPT_MEDIA
   */
  probeMedia(path: string): Promise<MediaProbeResult | null> {
    return this.#requests.probeMedia(path);
  }

  /**
   * The machine's displays and the output's, from the player (`output.displays`).
   * @throws {CueportError} NOT_READY, UNAVAILABLE (a player without it)
   */
  displays(): Promise<OutputDisplays> {
    return this.#requests.displays();
  }

  /**
   * Hands the player one sample of incoming timecode; see `PlayerRequests.timecode`.
   * @throws {CueportError} NOT_READY, NOT_FOUND (no Project open), UNAVAILABLE
   */
  timecode(sample: MethodParams<typeof Method.TIMECODE_SAMPLE>): Promise<TimecodeState> {
    return this.#requests.timecode(sample);
  }

  /** Shifts the player's clock to follow the rig group's show clock (`clock.shift`). */
  shiftPlayerClock(shiftMs: number): Promise<number | null> {
    return this.#requests.shiftClock(shiftMs);
  }

  /** Moves a virtual player clock (only when the service runs with one). */
  advanceClock(ms: number): Promise<number> {
    return this.#requests.advanceClock(ms);
  }

  /** Stops the bus. */
  close(): void {
    this.bus.close();
  }
}

/**
 * The shared core every transport calls: it validates and normalizes
 * actions, sends them to the player, keeps the read model current from the
 * player's updates and publishes those updates on the event bus.
 * @module
 */
import type { ActionParams, NormalizedAction } from "../../protocol/actions.ts";
import {
  type CameraFrameResult,
  type EditApplyParams,
  type MediaLocateResult,
  Method,
  type MethodParams,
  type ShowImportResult,
} from "../../protocol/methods.ts";
import { type ActionRequest, normalizeAction } from "./action_rules.ts";
import { IdempotencyStore, type RetryKey } from "./idempotency.ts";
import { projectMissing } from "./project_missing.ts";
import { LIFECYCLE_EDITS } from "../../protocol/edits/project.ts";
import { CueportError } from "./errors.ts";
import { type EditResult, normalizeEdits } from "./edits.ts";
import { fromPlayerError } from "./player_errors.ts";
// Where it was declared before `player_errors.ts` (the player client's tests import it here).
export { fromPlayerError } from "./player_errors.ts";
import { stageUpload } from "./uploads.ts";
import { sanitizeFileName } from "../../protocol/file_names.ts";
import { EventBus } from "./event_bus.ts";
import type { PlayerConnection } from "./player_connection.ts";
import { Queries } from "./queries.ts";
import { clientUpdate, snapshotView } from "./client_updates.ts";
import { ReadModel } from "./read_model.ts";
import type { StateUpdate } from "../../protocol/state.ts";
import type { OutputStats } from "../../protocol/output.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";

/** What an action did: the normalized request and the player's account. */
export interface ActionResult {
  action: string;
  projectId: string | null;
  params: ActionParams;
  velocity?: number;
  applied: boolean;
  message: string;
}

/** Options of the core. */
export interface CoreOptions {
  /** Coalescing window of the event bus, ms. */
  coalesceMs?: number;
  /** Folder where uploads are staged before the player takes them (default: a temp folder). */
  stagingDir?: string;
}

/**
 * How long a player that reports no progress (protocol 1.0) may send nothing
 * while it imports files, ms. Such a player copies in order, without
 * heartbeats, so nothing else tells it busy from hung.
 */
const SILENT_IMPORT_QUIET_MS = 10 * 60_000;

/** Options of `Core.importUpload`. */
export interface UploadOptions {
  /** The name the file gets (sanitized by the player; traversal refused here first). */
  name: string;
  projectId: string | null;
  maxBytes: number;
  /** The size the client announced, when it did (progress reports use it). */
  expectedBytes: number | null;
}

/** The key the player gets: a client's keys never meet another client's there either. */
function playerKey(retry: RetryKey): string {
  return `${retry.client}/${retry.key}`;
}

/** The core. */
export class Core {
  readonly model: ReadModel = new ReadModel();
  /** Every read of the API, from the read model. */
  readonly queries: Queries = new Queries(this.model, () => this.isReady);
  readonly bus: EventBus;
  /** Keys of safe retries (`idempotency.ts`), kept across player restarts. */
  readonly idempotency: IdempotencyStore = new IdempotencyStore();
  #player: PlayerConnection;
  #stagingDir: string | undefined;

  /** Wires the core to a player connection. */
  constructor(player: PlayerConnection, options: CoreOptions = {}) {
    this.#player = player;
    this.#stagingDir = options.stagingDir;
    this.bus = new EventBus({ windowMs: options.coalesceMs ?? SETTING_DEFAULTS.coalesceMs });
    player.onready = (snapshot, info) => {
      this.model.load(snapshot);
      this.model.setClock(snapshot.now, info.capabilities.virtualClock);
      this.bus.publish({
        updateType: "full",
        projectId: null,
        data: { event: "player-ready", state: snapshotView(this.model) },
      });
    };
    player.onupdates = (updates, now) => {
      this.model.setClock(now);
      for (const update of updates) {
        this.model.apply(update);
        this.bus.publish(clientUpdate(this.model, update));
      }
    };
  }

  /** True when the player is up and the read model holds its state. */
  get isReady(): boolean {
    return this.#player.isReady && this.model.isLoaded;
  }

  /** The player's handshake answer, when ready. */
  get playerInfo(): PlayerConnection["info"] {
    return this.#player.info;
  }

  /** How the player fares: its restarts, and its output's figures from its last heartbeat. */
  get playerHealth(): { restarts: number; output: OutputStats | null } {
    return { restarts: this.#player.restarts, output: this.#player.output };
  }

  /** @throws {CueportError} NOT_READY while the player is down */
  requireReady(): void {
    if (!this.isReady) {
      throw new CueportError("NOT_READY", "The player is not ready; try again shortly");
    }
  }

  /** @throws {CueportError} API_ACCESS_DENIED when the player's plan has no API access */
  requireApiAccess(): void {
    if (this.model.entitlements?.apiAccess === false) {
      throw new CueportError(
        "API_ACCESS_DENIED",
        "The plan does not include API access: upgrade the plan to use the API",
      );
    }
  }

  /**
   * Runs one action from any transport.
   * @throws {CueportError} INVALID_MESSAGE, NOT_READY, NOT_FOUND (project), ACTION_FAILED (refused)
   */
  runAction(request: ActionRequest, retry?: RetryKey): Promise<ActionResult> {
    if (!retry) return this.#runAction(request);
    return this.idempotency.run(
      retry.client,
      retry.key,
      `action ${JSON.stringify(request)}`,
      () => this.#runAction(request, playerKey(retry)),
    );
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
    const pid = projectId ?? this.model.activeProjectId;
    if (pid === null) return undefined;
    if (kind === "clip") return this.model.clip(pid, id)?.duration;
    const song = this.model.song(pid, id);
    if (!song) return undefined;
    const playing = this.model.playstate(pid)?.song;
    if (playing?.songID === id) return playing.duration;
    // Not the active Song (the player refuses the seek): its length as the player would take it.
    const audio = this.model.project(pid)?.files.find((f) => f.id === song.audioFileId);
    const cues = song.timeline.map((c) => c.time);
    return audio?.duration ?? (cues.length > 0 ? Math.max(...cues) : null);
  }

  #runAction(request: ActionRequest, idempotencyKey?: string): Promise<ActionResult> {
    let action: NormalizedAction;
    try {
      action = normalizeAction(request);
      this.requireReady();
      if (action.projectId !== null && !this.model.project(action.projectId)) {
        throw projectMissing(this.model.library, action.projectId);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    // One promise step per action (no async function): this is the hottest path.
    const params = idempotencyKey === undefined ? action : { ...action, idempotencyKey };
    return this.#player.request(Method.ACTION_RUN, params).then((outcome) => {
      const result: ActionResult = {
        action: action.name,
        projectId: action.projectId ?? this.model.activeProjectId,
        params: action.params,
        applied: outcome.applied,
        message: outcome.message,
      };
      if (action.velocity !== undefined) result.velocity = action.velocity;
      return result;
    }, (error) => {
      throw fromPlayerError(error);
    });
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
    const { retry, ...rest } = options;
    if (!retry) return this.#runEdit(body, rest);
    return this.idempotency.run(
      retry.client,
      retry.key,
      `edit ${JSON.stringify(body)}`,
      () => this.#runEdit(body, rest, playerKey(retry)),
    );
  }

  async #runEdit(
    body: unknown,
    options: { isLocal: boolean; isUpload?: boolean },
    idempotencyKey?: string,
  ): Promise<EditResult> {
    const { projectId, edits } = normalizeEdits(body, options);
    this.requireReady();
    // A lifecycle edit may name a Project that is not open (project.delete of a closed one):
    // the player answers it.
    const isLifecycle = edits.some((e) => LIFECYCLE_EDITS.has(e.name));
    if (projectId !== null && !isLifecycle && !this.model.project(projectId)) {
      throw projectMissing(this.model.library, projectId);
    }
    const params: EditApplyParams = { projectId, edits };
    if (options.isUpload) params.isUpload = true;
    if (idempotencyKey !== undefined) params.idempotencyKey = idempotencyKey;
    const isSilentImport = edits.some((e) => e.name === "file.import") &&
      this.#player.info?.capabilities.progress !== true;
    try {
      const result = await this.#player.request(
        Method.EDIT_APPLY,
        params,
        isSilentImport ? { quietMs: SILENT_IMPORT_QUIET_MS } : {},
      );
      return { ok: true, ...result };
    } catch (error) {
      const isBatch = typeof body === "object" && body !== null && "edits" in body;
      throw fromPlayerError(error, { edit: { isBatch } });
    }
  }

  /**
   * Stages an uploaded file (streamed, size-limited) and imports it into a
   * Project; clients see `upload-progress` updates while it arrives.
   * @throws {CueportError} PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA, CORRUPT_MEDIA, and those of runEdit
   */
  async importUpload(body: AsyncIterable<Uint8Array>, options: UploadOptions): Promise<EditResult> {
    const safe = sanitizeFileName(options.name);
    if ("error" in safe) {
      throw new CueportError("INVALID_MESSAGE", `Invalid name: ${safe.error}`, { field: "name" });
    }
    this.requireReady();
    const projectId = options.projectId ?? this.model.activeProjectId;
    if (projectId === null || !this.model.project(projectId)) {
      throw projectMissing(this.model.library, projectId);
    }
    const uploadId = crypto.randomUUID();
    const expected = options.expectedBytes;
    const step = Math.max(256 * 1024, Math.floor((expected ?? 0) / 20));
    let reported = -1;
    const progress = (bytes: number, end?: { error?: string }) => {
      if (!end && reported >= 0 && bytes - reported < step) return;
      reported = bytes;
      const update: StateUpdate = {
        updateType: "project",
        projectId,
        data: {
          event: "upload-progress",
          uploadId,
          name: options.name,
          bytes,
          totalBytes: expected,
          done: end !== undefined,
          ...(end?.error ? { error: end.error } : {}),
        },
      };
      this.model.apply(update); // GET /api/v1/imports lists it
      this.bus.publish(update);
    };
    const dir = this.#stagingDir ?? await Deno.makeTempDir({ prefix: "cueport-upload-" });
    progress(0); // listed at once, before the first bytes arrive
    let staged: { path: string; size: number };
    try {
      staged = await stageUpload(body, {
        dir,
        maxBytes: options.maxBytes,
        onProgress: (bytes) => progress(bytes),
      });
    } catch (error) {
      progress(Math.max(reported, 0), { error: (error as Error).message });
      throw error;
    }
    progress(staged.size, {});
    try {
      if (/\.fs$/i.test(options.name)) {
        return await this.#importShader(staged.path, options.name, projectId);
      }
      return await this.runEdit({
        name: "file.import",
        params: { path: staged.path, name: options.name },
        projectID: projectId,
      }, { isLocal: true, isUpload: true });
    } finally {
      await Deno.remove(staged.path).catch(() => {});
    }
  }

  /**
   * An uploaded ISF file (`.fs`) as a user preset (`preset.import`, docs/presets.md);
   * a problem in its code names the upload's `file` field.
   */
  async #importShader(path: string, fileName: string, projectID: string): Promise<EditResult> {
    const name = fileName.replace(/\.fs$/i, "").trim();
    const params = { path, ...(name ? { name } : {}) };
    try {
      return await this.runEdit({ name: "preset.import", params, projectID }, { isLocal: true });
    } catch (error) {
      if (!(error instanceof CueportError) || error.code !== "INVALID_SHADER") throw error;
      const message = error.message.replace("Invalid params.path", "Invalid file");
      throw new CueportError("INVALID_SHADER", message, { ...error.details, field: "file" });
    }
  }

  /** Reloads projects and media from disk; clients get a `full` update. */
  async reload(): Promise<void> {
    this.requireReady();
    await this.#player.request(Method.PROJECTS_RELOAD, undefined).catch(
      (e) => {
        throw fromPlayerError(e);
      },
    );
  }

  /** Where uploads are staged (`CoreOptions.stagingDir`); a temp folder when none was given. */
  async stagingFolder(): Promise<string> {
    return this.#stagingDir ?? await Deno.makeTempDir({ prefix: "cueport-upload-" });
  }

  /**
   * Imports a show file on this machine through the player (`show.import`, docs/projects.md).
   * @throws {CueportError} NOT_READY, INVALID_SHOW_FILE (what is wrong, nothing kept), DISK_FULL
   */
  importShow(params: MethodParams<typeof Method.SHOW_IMPORT>): Promise<ShowImportResult> {
    this.requireReady();
    return this.#player.request(Method.SHOW_IMPORT, params).catch((e) => {
      throw fromPlayerError(e);
    });
  }

  /**
   * Where a Project's file is on disk, from the player (`media.locate`).
   * @throws {CueportError} NOT_READY, NOT_FOUND, UNAVAILABLE (a player without it)
   */
  locateFile(projectId: string, fileId: string): Promise<MediaLocateResult> {
    return this.#player.request(Method.MEDIA_LOCATE, { projectId, fileId })
      .catch((e) => {
        throw fromPlayerError(e);
      });
  }

  /**
   * A picture a camera just took, from the player (`camera.frame`); captures
   * may take seconds.
   * @throws {CueportError} NOT_READY, NOT_FOUND, UNAVAILABLE (no ffmpeg), ACTION_FAILED (the capture failed)
   */
  cameraFrame(cameraId: string): Promise<CameraFrameResult> {
    return this.#player.request(Method.CAMERA_FRAME, { cameraId }).catch((e) => {
      throw fromPlayerError(e);
    });
  }

  /** Moves a virtual player clock (only when the service runs with one). */
  async advanceClock(ms: number): Promise<number> {
    this.requireReady();
    if (!this.#player.info?.capabilities.virtualClock) {
      throw new CueportError("NOT_FOUND", "The player does not run on a virtual clock");
    }
    const result = await this.#player.request(Method.CLOCK_ADVANCE, { ms })
      .catch((e) => {
        throw fromPlayerError(e);
      });
    this.model.setClock(result.now);
    return result.now;
  }

  /** Stops the bus. */
  close(): void {
    this.bus.close();
  }
}

/**
 * The core's edits: one edit or an atomic batch, validated against the
 * catalog (`edits.ts`), checked against the read model and applied by the
 * player, once per retry key when there is one.
 * @module
 */
import {
  type EditApplyParams,
  type EditApplyResult,
  type EditorAnswerParams,
  type EditorEditParams,
  Method,
  type ProjectsState,
} from "../../protocol/methods.ts";
import type { EditRequest } from "../../protocol/edits/apply.ts";
import { RpcError } from "../../protocol/jsonrpc.ts";
import { LIFECYCLE_EDITS } from "../../protocol/edits/project.ts";
import { type EditResult, normalizeEdits } from "./edits.ts";
import type { V5Port } from "./action_rules.ts";
import type { IdempotencyStore, RetryKey } from "./idempotency.ts";
import type { PlayerLink } from "./player_link.ts";
import { fromPlayerError } from "./player_errors.ts";
import { projectMissing } from "./project_missing.ts";
import { runOnce } from "./retries.ts";

/**
 * How long a player that reports no progress (protocol 1.0) may send nothing
 * while it imports files, ms. Such a player copies in order, without
 * heartbeats, so nothing else tells it busy from hung.
 */
const SILENT_IMPORT_QUIET_MS = 10 * 60_000;

/** Options of `EditRunner.run` (and `Core.runEdit`). */
export interface EditOptions {
  /** The client is on this machine (local-only edits name its paths). */
  isLocal: boolean;
  /** The edit imports a file the service staged from an upload. */
  isUpload?: boolean;
  retry?: RetryKey;
}

/** A batch as a rig group's log holds it: its Project resolved (null: the library's). */
export interface LoggedBatch {
  projectId: string | null;
  edits: EditRequest[];
}

/**
 * Where edits go in a rig group (`server/rigs/replicated_edits.ts`): committed
 * to the group's log, answered once this rig applied them from it.
 */
export interface EditLog {
  /** `keyed`: a keyed edit's `client/key` and a hash of what was asked (once across the group). */
  commit(
    batch: LoggedBatch,
    keyed?: { key: string; fingerprint: string },
  ): Promise<EditApplyResult>;
}

/** Applies edits from any transport (`Core.runEdit`). */
export class EditRunner {
  #link: PlayerLink;
  #idempotency: IdempotencyStore;
  #log: EditLog | null = null;
  /** Where a refusal points a 5.0.0 body (`Core.v5HttpPort`). */
  v5Port: V5Port = undefined;

  /** Edits go to the player of `link`; retries are kept in `idempotency`. */
  constructor(link: PlayerLink, idempotency: IdempotencyStore) {
    this.#link = link;
    this.#idempotency = idempotency;
  }

  /**
   * The Projects captured and replaced whole through the player (`projects.capture`,
   * `projects.replace`, 1.16): the state of a rig group's snapshots (`server/rigs/snapshot*.ts`).
   * @throws {CueportError} NOT_READY while the player is away (the snapshot is tried again)
   */
  readonly snapshots = {
    capture: (): Promise<ProjectsState> => {
      this.#link.requireReady();
      return this.#link.player.request(Method.PROJECTS_CAPTURE, {});
    },
    restore: async (state: unknown): Promise<void> => {
      this.#link.requireReady();
      await this.#link.player.request(Method.PROJECTS_REPLACE, state as ProjectsState);
    },
  };

  /** Sends the edits to a rig group's log from now on (null: to the player, alone). */
  replicateTo(log: EditLog | null): void {
    this.#log = log;
  }

  /**
   * Applies a batch of the group's log, seeded by `seed` (the ids it makes),
   * at most once per seed: what the player answered, a refusal included.
   * @throws when it could not be tried (the player not ready, or gone meanwhile)
   */
  async applyLogged(
    batch: LoggedBatch,
    seed: string,
  ): Promise<{ result: EditApplyResult } | { refusal: RpcError }> {
    this.#link.requireReady();
    const { projectId, edits } = batch;
    const params: EditApplyParams = { projectId, edits, seed, idempotencyKey: `log-${seed}` };
    try {
      return { result: await this.#link.player.request(Method.EDIT_APPLY, params) };
    } catch (error) {
      if (error instanceof RpcError) return { refusal: error };
      throw error;
    }
  }

  /**
   * Runs an edit of the player's editor page (`editor.edit`, 1.17) as any local client's:
   * through the group's log in a group; then answers the player (`editor.answer`), which
   * answers its page. A player gone meanwhile is not answered (it refuses the page's edit).
   */
  async runForwarded(forwarded: EditorEditParams): Promise<void> {
    const { id, projectId, edits } = forwarded;
    const target = projectId === null ? {} : { projectID: projectId };
    const body = edits.length === 1 ? { ...edits[0], ...target } : { edits, ...target };
    let answer: EditorAnswerParams;
    try {
      const { ok: _, ...result } = await this.run(body, { isLocal: true });
      answer = { id, result };
    } catch (error) {
      const refusal = fromPlayerError(error, { edit: { isBatch: edits.length > 1 } });
      const problems = refusal.details?.problems;
      answer = {
        id,
        error: {
          code: refusal.code,
          message: refusal.message,
          ...(Array.isArray(problems) ? { problems } : {}),
        },
      };
    }
    await this.#link.player.request(Method.EDITOR_ANSWER, answer).catch(() => {});
  }

  /**
   * Applies one edit or an atomic batch (body of `POST /api/v1/edit`).
   * @throws {CueportError} INVALID_MESSAGE, LOCAL_ONLY, NOT_READY, NOT_FOUND, EDIT_REFUSED,
   * UNSUPPORTED_MEDIA, CORRUPT_MEDIA
   */
  run(body: unknown, options: EditOptions): Promise<EditResult> {
    const { retry, ...rest } = options;
    if (!retry) return this.#run(body, rest);
    return runOnce(
      this.#idempotency,
      retry,
      `edit ${JSON.stringify(body)}`,
      (key) => this.#run(body, rest, key),
    );
  }

  async #run(
    body: unknown,
    options: { isLocal: boolean; isUpload?: boolean },
    idempotencyKey?: string,
  ): Promise<EditResult> {
    const { projectId, edits } = normalizeEdits(body, { ...options, v5Port: this.v5Port });
    const { model, player } = this.#link;
    this.#link.requireReady();
    // A lifecycle edit may name a Project that is not open (project.delete of a closed one):
    // the player answers it.
    const isLifecycle = edits.some((e) => LIFECYCLE_EDITS.has(e.name));
    if (projectId !== null && !isLifecycle && !model.project(projectId)) {
      throw projectMissing(model.library, projectId);
    }
    const isBatch = typeof body === "object" && body !== null && "edits" in body;
    if (this.#log) {
      const log = this.#log;
      const resolved = projectId ?? (isLifecycle ? null : model.activeProjectId);
      const keyed = idempotencyKey === undefined
        ? undefined
        : { key: idempotencyKey, fingerprint: await fingerprintOf(body) };
      return await this.#replicated(
        () => log.commit({ projectId: resolved, edits }, keyed),
        isBatch,
      );
    }
    const params: EditApplyParams = { projectId, edits };
    if (options.isUpload) params.isUpload = true;
    if (idempotencyKey !== undefined) params.idempotencyKey = idempotencyKey;
    const isSilentImport = edits.some((e) => e.name === "file.import") &&
      player.info?.capabilities.progress !== true;
    try {
      const result = await player.request(
        Method.EDIT_APPLY,
        params,
        isSilentImport ? { quietMs: SILENT_IMPORT_QUIET_MS } : {},
      );
      return { ok: true, ...result };
    } catch (error) {
      throw fromPlayerError(error, { edit: { isBatch } });
    }
  }

  /**
   * A batch through the group's log (`commit`); a `file.import`'s file is copied to every live
   * rig before it commits (`server/rigs/media_imports.ts`).
   */
  async #replicated(
    commit: () => Promise<EditApplyResult>,
    isBatch: boolean,
  ): Promise<EditResult> {
    try {
      return { ok: true, ...await commit() };
    } catch (error) {
      throw fromPlayerError(error, { edit: { isBatch } });
    }
  }
}

/** A hash of what a keyed edit asked (its body), hex: the same key for other edits is refused. */
async function fingerprintOf(body: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

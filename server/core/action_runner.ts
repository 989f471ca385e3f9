/**
 * The core's actions: each request normalized by the action rules, checked
 * against the read model, sent to the player and answered with what it did.
 * This is the hottest path of the service.
 * @module
 */
import type { ActionParams, NormalizedAction } from "../../protocol/actions.ts";
import { Method } from "../../protocol/methods.ts";
import { type ActionRequest, normalizeAction, type V5Port } from "./action_rules.ts";
import type { IdempotencyStore, RetryKey } from "./idempotency.ts";
import type { PlayerLink } from "./player_link.ts";
import { fromPlayerError } from "./player_errors.ts";
import { projectMissing } from "./project_missing.ts";
import { runOnce } from "./retries.ts";

/** The player protocol's minor that reads `due` in `action.run` (1.14). */
const DUE_SINCE_MINOR = 14;

/** What an action did: the normalized request and the player's account. */
export interface ActionResult {
  action: string;
  projectId: string | null;
  params: ActionParams;
  velocity?: number;
  applied: boolean;
  message: string;
}

/** Where a rig group sends actions instead of straight to the player (`server/rigs/actions.ts`). */
export interface ActionScheduler {
  /** Runs a checked action on every rig at one show time; answers once this rig scheduled it. */
  submit(
    action: NormalizedAction,
    idempotencyKey: string | undefined,
    dedupeKey?: string,
  ): Promise<ActionResult>;
}

/** Runs actions from any transport (`Core.runAction`). */
export class ActionRunner {
  #link: PlayerLink;
  #idempotency: IdempotencyStore;
  /** In a rig group, every checked action goes through it (to every rig); null alone. */
  scheduler: ActionScheduler | null = null;
  /** Where a refusal points a 5.0.0 body (`Core.v5HttpPort`). */
  v5Port: V5Port = undefined;

  /** Actions go to the player of `link`; retries are kept in `idempotency`. */
  constructor(link: PlayerLink, idempotency: IdempotencyStore) {
    this.#link = link;
    this.#idempotency = idempotency;
  }

  /**
   * Runs one action, once per retry key when there is one.
   * @throws {CueportError} INVALID_MESSAGE, NOT_READY, NOT_FOUND (project), ACTION_FAILED (refused)
   */
  run(request: ActionRequest, retry?: RetryKey): Promise<ActionResult> {
    if (!retry) return this.#run(request);
    // A sender's key (`~`, an OSC message in a group): no retry, only the group's dedupe.
    if (this.scheduler !== null && retry.key.startsWith("~")) {
      return this.#run(request, undefined, retry.key);
    }
    return runOnce(
      this.#idempotency,
      retry,
      `action ${JSON.stringify(request)}`,
      // The client's own key (not its device's): copies sent to several rigs run once.
      (key) => this.#run(request, key, retry.key),
    );
  }

  #run(request: ActionRequest, idempotencyKey?: string, dedupeKey?: string): Promise<ActionResult> {
    const model = this.#link.model;
    let action: NormalizedAction;
    try {
      action = normalizeAction(request, this.v5Port);
      this.#link.requireReady();
      if (action.projectId !== null && !model.project(action.projectId)) {
        throw projectMissing(model.library, action.projectId);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.scheduler !== null) return this.scheduler.submit(action, idempotencyKey, dedupeKey);
    return this.#send(action, idempotencyKey);
  }

  /**
   * Sends a checked action to this rig's player now (a group's scheduled action runs so), `due`
   * when it was (Unix ms): a player of protocol 1.14 on a real clock starts its Clips where they
   * would be had it run then; an older one, or one on a virtual clock, runs it as of now.
   * @throws {CueportError} NOT_READY, ACTION_FAILED (refused)
   */
  send(
    action: NormalizedAction,
    idempotencyKey?: string,
    due?: number,
    at?: number,
  ): Promise<ActionResult> {
    try {
      this.#link.requireReady();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#send(
      action,
      idempotencyKey,
      due !== undefined && this.#takesDue() ? due : undefined,
      at,
    );
  }

  /** Whether the player reads `due` (protocol 1.14) on the machine's clock (not a virtual one). */
  #takesDue(): boolean {
    const info = this.#link.player.info;
    return info !== null && !info.capabilities.virtualClock &&
      Number(info.protocolVersion.split(".")[1] ?? 0) >= DUE_SINCE_MINOR;
  }

  #send(
    action: NormalizedAction,
    idempotencyKey?: string,
    due?: number,
    at?: number,
  ): Promise<ActionResult> {
    const model = this.#link.model;
    // One promise step per action (no async function): this is the hottest path.
    let params = idempotencyKey === undefined ? action : { ...action, idempotencyKey };
    if (due !== undefined) params = { ...params, due };
    if (at !== undefined) params = { ...params, at }; // a group's decision time (1.15)
    return this.#link.player.request(Method.ACTION_RUN, params).then((outcome) => {
      const result: ActionResult = {
        action: action.name,
        projectId: action.projectId ?? model.activeProjectId,
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
}

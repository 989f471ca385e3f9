/**
 * The shared core every transport calls: it validates and normalizes
 * actions, sends them to the player, keeps the read model current from the
 * player's updates and publishes those updates on the event bus.
 * @module
 */
import type { ActionParams } from "../../protocol/actions.ts";
import { RpcError, RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { type ActionOutcome, Method } from "../../protocol/methods.ts";
import { type ActionRequest, normalizeAction } from "./action_rules.ts";
import { CueportError } from "./errors.ts";
import { EventBus } from "./event_bus.ts";
import type { PlayerConnection } from "./player_connection.ts";
import { Queries } from "./queries.ts";
import { ReadModel } from "./read_model.ts";

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
}

/** Maps an error from the player to the service's stable codes. */
export function fromPlayerError(error: unknown): Error {
  if (error instanceof CueportError) return error;
  if (error instanceof RpcError) {
    switch (error.code) {
      case RpcErrorCode.ACTION_REFUSED:
        return new CueportError("ACTION_FAILED", error.message);
      case RpcErrorCode.NOT_FOUND:
        return new CueportError("NOT_FOUND", error.message);
      case RpcErrorCode.INVALID_PARAMS:
        return new CueportError("INVALID_MESSAGE", error.message);
      case RpcErrorCode.NOT_ENTITLED:
        return new CueportError("API_ACCESS_DENIED", error.message);
    }
    return new CueportError("SERVER_ERROR", `The player failed: ${error.message}`);
  }
  return new CueportError("SERVER_ERROR", "The player failed unexpectedly");
}

/** The core. */
export class Core {
  readonly model: ReadModel = new ReadModel();
  /** Every read of the API, from the read model. */
  readonly queries: Queries = new Queries(this.model, () => this.isReady);
  readonly bus: EventBus;
  #player: PlayerConnection;

  /** Wires the core to a player connection. */
  constructor(player: PlayerConnection, options: CoreOptions = {}) {
    this.#player = player;
    this.bus = new EventBus({ windowMs: options.coalesceMs ?? 5 });
    player.onready = (snapshot, info) => {
      this.model.load(snapshot);
      this.model.setClock(snapshot.now, info.capabilities.virtualClock);
      this.bus.publish({
        updateType: "full",
        projectId: null,
        data: { event: "player-ready", state: snapshot },
      });
    };
    player.onupdates = (updates, now) => {
      this.model.setClock(now);
      for (const update of updates) {
        this.model.apply(update);
        this.bus.publish(update);
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
  async runAction(request: ActionRequest): Promise<ActionResult> {
    const action = normalizeAction(request);
    this.requireReady();
    if (action.projectId !== null && !this.model.project(action.projectId)) {
      throw new CueportError("NOT_FOUND", `Project "${action.projectId}" does not exist`, {
        field: "projectID",
      });
    }
    let outcome: ActionOutcome;
    try {
      outcome = await this.#player.request<ActionOutcome>(Method.ACTION_RUN, action);
    } catch (error) {
      throw fromPlayerError(error);
    }
    const result: ActionResult = {
      action: action.name,
      projectId: action.projectId ?? this.model.activeProjectId,
      params: action.params,
      applied: outcome.applied,
      message: outcome.message,
    };
    if (action.velocity !== undefined) result.velocity = action.velocity;
    return result;
  }

  /** Reloads projects and media from disk; clients get a `full` update. */
  async reload(): Promise<void> {
    this.requireReady();
    await this.#player.request(Method.PROJECTS_RELOAD, undefined, { timeoutMs: 30_000 }).catch(
      (e) => {
        throw fromPlayerError(e);
      },
    );
  }

  /** Moves a virtual player clock (only when the service runs with one). */
  async advanceClock(ms: number): Promise<number> {
    this.requireReady();
    if (!this.#player.info?.capabilities.virtualClock) {
      throw new CueportError("NOT_FOUND", "The player does not run on a virtual clock");
    }
    const result = await this.#player.request<{ now: number }>(Method.CLOCK_ADVANCE, { ms })
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

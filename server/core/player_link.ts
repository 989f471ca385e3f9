/**
 * The core's side of the player connection: keeps the read model and the
 * event bus current from the player's handshake and updates, and says
 * whether the player is ready. The parts of the core that talk to the player
 * (actions, edits, imports, requests) go through it.
 * @module
 */
import { CueportError } from "./errors.ts";
import type { EventBus } from "./event_bus.ts";
import type { PlayerConnection } from "./player_connection.ts";
import { clientUpdate, snapshotView } from "./client_updates.ts";
import type { ReadModel } from "./read_model.ts";
import type { OutputStats } from "../../protocol/output.ts";

/**
 * Why every API request is refused when the player's plan has no API access: said to each client
 * (`API_ACCESS_DENIED`) and once in the log as the player starts. The bundled player's plan is
 * the setting `plan`.
 */
export const NO_API_ACCESS = "The plan does not include API access: upgrade the plan to use " +
  "the API (the bundled player's plan is the setting plan: --plan pro or CUEPORT_PLAN=pro)";

/** The player, the read model it feeds and the bus its updates go out on. */
export class PlayerLink {
  /** The connection to whichever player is running. */
  readonly player: PlayerConnection;
  /** The player's state as the server knows it. */
  readonly model: ReadModel;
  /** Where the player's updates go out to clients. */
  readonly bus: EventBus;

  /** Wires the read model and the bus to the player's `onready` and `onupdates`. */
  constructor(player: PlayerConnection, parts: { model: ReadModel; bus: EventBus }) {
    this.player = player;
    this.model = parts.model;
    this.bus = parts.bus;
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
    return this.player.isReady && this.model.isLoaded;
  }

  /** How the player fares: its restarts, and its output's figures from its last heartbeat. */
  get health(): { restarts: number; output: OutputStats | null } {
    return { restarts: this.player.restarts, output: this.player.output };
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
      throw new CueportError("API_ACCESS_DENIED", NO_API_ACCESS);
    }
  }
}

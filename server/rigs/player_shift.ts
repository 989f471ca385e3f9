/**
 * The player's clock kept on the rig's show clock (docs/rigs.md, Outputs on the show clock): the
 * player's Clips and its output's frames run on its own clock, which runs at this machine's rate;
 * the show clock runs at the leader's. Once the show clock has synced, each look sends the player
 * how far the show clock's offset moved since (`clock.shift`, player protocol 1.15), so that the
 * player's clock, and every Clip and frame on it, runs at the show time's rate. The shift is
 * sent as it is, a show clock's step too: the player's `FollowingClock` takes the first one it is
 * told as its base and slews each change (5%; stepped above half a second, held still downward).
 * @module
 */
import { RpcError, RpcErrorCode } from "../../protocol/jsonrpc.ts";
import type { Logger } from "../log.ts";
import type { LocalClock } from "./clock/local_clock.ts";
import type { ShowClock } from "./clock/show_clock.ts";

/** This rig's player, as the show clock sees it. */
export interface ShowPlayer {
  /** How far the output's frames lag the player's clock, ms (its last report); null: none. */
  frameLagMs(): number | null;
  /** Shifts the player's clock (`clock.shift`); resolves to the shift it follows (null: none). */
  shiftClock(shiftMs: number): Promise<number | null>;
}

/** A shift is sent again after this long even when it did not move (a restarted player). */
const RESEND_MS = 2000;
/** A shift that moved less than this since the last one sent is not sent, ms. */
const MIN_MOVE_MS = 0.05;

/** Sends the player its clock's shift; `look` at each look at the group. */
export class PlayerShift {
  readonly #show: ShowClock;
  readonly #local: LocalClock;
  readonly #player: ShowPlayer;
  readonly #log: Logger;
  /** The show clock's offset when it first synced; null before. */
  #syncedOffset: number | null = null;
  #sent: { shiftMs: number; at: number } | null = null;
  #isSending = false;
  #isRefused = false;

  constructor(show: ShowClock, local: LocalClock, player: ShowPlayer, log: Logger) {
    this.#show = show;
    this.#local = local;
    this.#player = player;
    this.#log = log;
  }

  /** The shift the player was last told (null: none yet). */
  get shiftMs(): number | null {
    return this.#sent?.shiftMs ?? null;
  }

  /** Sends the shift when it moved or was not sent for a while (one request at a time). */
  look(): void {
    if (this.#isRefused || this.#isSending || !this.#show.isSynced) return;
    this.#syncedOffset ??= this.#show.offset;
    const shiftMs = this.#show.offset - this.#syncedOffset;
    const at = this.#local.now();
    const sent = this.#sent;
    if (sent && Math.abs(shiftMs - sent.shiftMs) < MIN_MOVE_MS && at - sent.at < RESEND_MS) return;
    this.#isSending = true;
    // A player not ready may throw at once, before any promise: that is a rejection too.
    new Promise<unknown>((resolve) => resolve(this.#player.shiftClock(shiftMs))).then(
      () => this.#sent = { shiftMs, at },
      (error) => {
        // A player before 1.15 keeps its own clock's rate; anything else (down, restarting) is
        // sent again at the next look.
        if (!(error instanceof RpcError && error.code === RpcErrorCode.METHOD_NOT_FOUND)) return;
        this.#isRefused = true;
        this.#log(
          "warn",
          "The player has no clock.shift (protocol 1.15): its frames run at this machine's clock rate, not the group's show time's",
        );
      },
    ).finally(() => this.#isSending = false);
  }
}

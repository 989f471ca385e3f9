/**
 * How the core knows the player: an interface, so tests can hand it an
 * in-process player over an in-memory transport pair.
 * @module
 */
import type {
  EditorEditParams,
  InitializeResult,
  MethodName,
  MethodParams,
  MethodResult,
} from "../../protocol/methods.ts";
import type { Snapshot, StateUpdate } from "../../protocol/state.ts";
import type { OutputStats } from "../../protocol/output.ts";

/** Options of one request to the player. */
export interface PlayerRequestOptions {
  /**
   * For a player without heartbeats (before protocol 1.5): how long it may send
   * nothing while this request waits, ms, before it counts as hung.
   */
  quietMs?: number;
  /** Called for each progress report of the request (since protocol 1.1). */
  onProgress?: (progress: number, total: number | null) => void;
}

/** A connection to whichever player is running. */
export interface PlayerConnection {
  /** True between a successful handshake and the player's exit. */
  readonly isReady: boolean;
  /** The current player's handshake answer, when ready. */
  readonly info: InitializeResult | null;
  /** How many times the player was restarted. */
  readonly restarts: number;
  /** How the output draws, from the player's last heartbeat; null without one or without output. */
  readonly output: OutputStats | null;
  /**
   * Sends a request and waits for its answer as long as the player makes
   * progress (no deadline of its own). Rejects with NOT_READY while no player
   * is up, or when it went away (or was declared hung) before answering: the
   * outcome is then unknown. An RpcError for an error response (or a result
   * that does not fit its schema, for the methods whose results are checked:
   * `protocol/methods.ts`).
   */
  request<M extends MethodName>(
    method: M,
    params: MethodParams<M>,
    options?: PlayerRequestOptions,
  ): Promise<MethodResult<M>>;
  /** Called after each (re)start with the player's full state. */
  onready: (snapshot: Snapshot, info: InitializeResult) => void;
  /** Called with each batch of state updates, in order, with the player clock (ms) it was sent at. */
  onupdates: (updates: StateUpdate[], now: number) => void;
  /** Called when the player goes away. */
  ondown: (reason: string) => void;
  /** Called with each edit of the player's editor page it forwards (1.17; a rig group's). */
  oneditoredit?: (params: EditorEditParams) => void;
}

/**
 * Keeps a player running: launch, handshake, snapshot, and on exit reject
 * what was pending, report not-ready, and restart with backoff. A player is
 * killed and restarted only when it made no progress for a long bound
 * (`liveness.ts`), never because an answer was slow. After each start the new
 * snapshot is handed over, so clients can get a `full` update.
 * @module
 */
import {
  EditorEditParams,
  type HeartbeatResult,
  type InitializeResult,
  isCompatibleVersion,
  LogParams,
  Method,
  type MethodName,
  type MethodParams,
  type MethodResult,
  METHODS,
  MidiLocalParams,
  Notification,
  PLAYER_PROTOCOL_VERSION,
  type StateUpdateParams,
} from "../../protocol/methods.ts";
import type { OutputStats } from "../../protocol/output.ts";
import type { Snapshot, StateUpdate } from "../../protocol/state.ts";
import { CueportError } from "../core/errors.ts";
import type { PlayerConnection } from "../core/player_connection.ts";
import { type RequestOptions, RpcClient } from "./rpc_client.ts";
import { checkedResult, notificationOf } from "./results.ts";
import type { LaunchedPlayer, PlayerLauncher } from "./spawn.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";
import { type LivenessBounds, LivenessWatch } from "./liveness.ts";
import { REAL_CLOCK, type WatchClock } from "./watch_clock.ts";

/** Restart timing. */
export interface BackoffOptions {
  /** First delay after an exit, ms (default 50). */
  initialMs?: number;
  /** Longest delay, ms (default 5000). */
  maxMs?: number;
  /**
   * A player that was ready this long, and not declared hung, resets the delay, ms
   * (default 10000). Downs before that double it: a player that cannot start on a
   * starved machine is started less and less often, never more.
   */
  resetAfterMs?: number;
}

/** Options of the supervisor. */
export interface SupervisorOptions {
  /**
   * No heartbeat answered and no message for this long: the player is hung, ms
   * (default: the `playerTimeoutMs` setting's).
   */
  silentMs?: number;
  /**
   * Heartbeats answered but the request holding the player's order made no
   * progress for this long: hung, ms (default: the `playerStuckMs` setting's).
   */
  stuckMs?: number;
  /**
   * How long the player may take to answer `initialize` after its launch, ms (default:
   * `stuckMs`): it opens its Project first, which on a first start makes the demo's media,
   * and on a loaded machine or with a large Project takes long; cutting it short would
   * only start that work again.
   */
  handshakeTimeoutMs?: number;
  /** A heartbeat this often, ms (default 1000). */
  heartbeatMs?: number;
  /** An answer slower than this is logged, one line a minute at most, ms (default 5000). */
  slowMs?: number;
  /** The clock the player is watched by (default: the real one; tests advance their own). */
  clock?: WatchClock;
  backoff?: BackoffOptions;
  log?: (level: LogParams["level"], message: string) => void;
  /** Name and version sent in the handshake. */
  client?: { name: string; version: string };
  /**
   * The player sends its editor page's edits here (`editor.edit`, 1.17) instead of applying
   * them: a rig group's, so that they go through its log (default false: alone).
   */
  forwardEditorEdits?: boolean;
}

/** How one player's life ended. */
interface Life {
  reason: string;
  /** How long it was ready, ms (0 when it never was). */
  readyMs: number;
  isHung: boolean;
}

/** Throws unless the player speaks a protocol version this service can talk to. */
function refuseIncompatible(info: InitializeResult): void {
  if (!isCompatibleVersion(info.protocolVersion, PLAYER_PROTOCOL_VERSION)) {
    throw new Error(
      `player speaks protocol ${info.protocolVersion}, not ${PLAYER_PROTOCOL_VERSION}`,
    );
  }
}

/** Whether a player of `version` (of this major) has what minor `minor` added. */
function hasMinor(version: string, minor: number): boolean {
  return Number(version.split(".")[1] ?? 0) >= minor;
}

/** Supervises one player at a time. */
export class PlayerSupervisor implements PlayerConnection {
  onready: (snapshot: Snapshot, info: InitializeResult) => void = () => {};
  onupdates: (updates: StateUpdate[], now: number) => void = () => {};
  ondown: (reason: string) => void = () => {};
  /** The player's local MIDI ports and their input (`midi.local`); none while it is down. */
  onmidi: (params: MidiLocalParams) => void = () => {};
  /** An edit of the player's editor page, to run and answer (`editor.edit`, 1.17). */
  oneditoredit: (params: EditorEditParams) => void = () => {};
  #launcher: PlayerLauncher;
  #options: SupervisorOptions;
  #clock: WatchClock;
  #client: RpcClient | null = null;
  #launched: LaunchedPlayer | null = null;
  #watch: LivenessWatch | null = null;
  #info: InitializeResult | null = null;
  #isReady = false;
  #isStopping = false;
  #killedAtStop = false;
  #restarts = 0;
  #heartbeats = 0;
  #loop: Promise<void> | null = null;
  #wake = Promise.withResolvers<void>();
  #readyWaiters: Array<() => void> = [];

  /** Builds a supervisor; `start()` launches the first player. */
  constructor(launcher: PlayerLauncher, options: SupervisorOptions = {}) {
    this.#launcher = launcher;
    this.#options = options;
    this.#clock = options.clock ?? REAL_CLOCK;
  }

  get isReady(): boolean {
    return this.#isReady;
  }

  /** Handshake answer of the current player, if ready. */
  get info(): InitializeResult | null {
    return this.#isReady ? this.#info : null;
  }

  /** How many times the player was restarted after an exit. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The current player's last heartbeat answer; null before its first (or without heartbeats). */
  get heartbeat(): HeartbeatResult | null {
    return this.#isReady ? this.#watch?.last ?? null : null;
  }

  /** Heartbeats answered since the service started, by every player. */
  get heartbeats(): number {
    return this.#heartbeats;
  }

  /** How the output draws, from the last heartbeat answer; null without one or without output. */
  get output(): OutputStats | null {
    return this.heartbeat?.output ?? null;
  }

  /**
   * True when `stop()` had to kill the player: it did not end within the grace
   * after the shutdown request. A fact to check where a duration would only hint.
   */
  get killedAtStop(): boolean {
    return this.#killedAtStop;
  }

  /** Process id of the current player, when it is a process. */
  get pid(): number | null {
    return this.#launched?.pid ?? null;
  }

  /** Starts the launch loop. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Resolves true once ready, false after `timeoutMs`. */
  waitReady(timeoutMs: number): Promise<boolean> {
    if (this.#isReady) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#readyWaiters = this.#readyWaiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.#readyWaiters.push(done);
    });
  }

  request<M extends MethodName>(
    method: M,
    params: MethodParams<M>,
    options: RequestOptions = {},
  ): Promise<MethodResult<M>> {
    if (!this.#isReady || !this.#client) {
      return Promise.reject(
        new CueportError("NOT_READY", "The player is not ready; try again shortly"),
      );
    }
    return typedRequest(this.#client, method, params, options);
  }

  /** Asks the player to shut down, waits for it (killing it after `graceMs`), stops restarting. */
  async stop(graceMs = 3000): Promise<void> {
    this.#isStopping = true;
    this.#wake.resolve();
    const launched = this.#launched;
    if (this.#client && launched) {
      // The one wall-clock bound left: the service is ending, and a player that does not go
      // within the grace is killed.
      const timer = setTimeout(() => {
        this.#killedAtStop = true;
        launched.kill();
      }, graceMs);
      await typedRequest(this.#client, Method.SHUTDOWN, undefined, {}).catch(() => {});
      await launched.exited.catch(() => {});
      clearTimeout(timer);
    }
    await this.#client?.close();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const initialMs = this.#options.backoff?.initialMs ?? 50;
    let delay = initialMs;
    while (!this.#isStopping) {
      const life = await this.#runOnce();
      this.#isReady = false;
      if (this.#isStopping) break;
      this.ondown(life.reason);
      this.onmidi({ type: "ports", inputs: [], outputs: [], error: "the player is down" });
      if (!life.isHung && life.readyMs >= (this.#options.backoff?.resetAfterMs ?? 10_000)) {
        delay = initialMs;
      }
      this.#log("warn", `Player down (${life.reason}); restarting in ${delay} ms`);
      await this.#sleep(delay);
      delay = Math.min(delay * 2, this.#options.backoff?.maxMs ?? 5000);
      this.#restarts++;
    }
  }

  /** The bounds of the liveness watch, from the options and the settings' defaults. */
  #bounds(): LivenessBounds {
    const o = this.#options;
    const stuckMs = o.stuckMs ?? SETTING_DEFAULTS.playerStuckMs;
    return {
      silentMs: o.silentMs ?? SETTING_DEFAULTS.playerTimeoutMs,
      stuckMs,
      handshakeMs: o.handshakeTimeoutMs ?? stuckMs,
      heartbeatMs: o.heartbeatMs ?? 1000,
      slowMs: o.slowMs ?? 5000,
    };
  }

  /** One player's life; resolves with how it ended. */
  async #runOnce(): Promise<Life> {
    let launched: LaunchedPlayer;
    try {
      launched = await this.#launcher.launch();
    } catch (error) {
      return { reason: `cannot launch: ${(error as Error).message}`, readyMs: 0, isHung: false };
    }
    this.#launched = launched;
    const client = new RpcClient(launched.transport, { now: () => this.#clock.now() });
    this.#client = client;
    const verdict: { hung: string | null } = { hung: null };
    const watch = this.#watchOf(client, launched, verdict);
    // Not ready from the moment the pipe ends: a request meanwhile is answered 503 at once.
    client.onclose = () => (this.#isReady = false);
    const reading = client.start();
    const ended = Promise.race([
      launched.exited.then(() => "exited"),
      reading.then(() => "closed"),
    ]);
    let readyAt: number | null = null;
    try {
      await this.#handshake(client, watch);
      readyAt = this.#clock.now();
    } catch (error) {
      if (!verdict.hung) this.#log("error", `Player handshake failed: ${(error as Error).message}`);
      launched.kill();
    }
    const why = await ended;
    watch.stop();
    launched.kill(); // a player that closed its output but lingers is ended
    // The next one starts only once this one is gone: never two players' work at once.
    await launched.exited.catch(() => {});
    await client.close();
    const readyMs = readyAt === null ? 0 : this.#clock.now() - readyAt;
    const isHung = verdict.hung !== null;
    return { reason: isHung ? "declared hung" : why, readyMs, isHung };
  }

  /** The liveness watch of one player, started; a hung verdict ends the player. */
  #watchOf(
    client: RpcClient,
    launched: LaunchedPlayer,
    verdict: { hung: string | null },
  ): LivenessWatch {
    const watch = new LivenessWatch(client, {
      clock: this.#clock,
      bounds: this.#bounds(),
      log: (level, message) => this.#log(level, message),
      onheartbeat: () => this.#heartbeats++,
      onhung: (why) => {
        // No progress for a long bound: as good as dead. End it so it restarts; what it was
        // asked is answered "outcome unknown", and a retry with its key asks the next one.
        verdict.hung = why;
        this.#log("error", `Player hung (${why}); restarting it`);
        void client.abandon("was declared hung");
        launched.kill();
      },
    });
    this.#watch = watch;
    watch.start();
    return watch;
  }

  /**
   * `initialize` and the snapshot; the updates read meanwhile are applied after it,
   * then the player is ready.
   * @throws {Error} when the player speaks another major, or goes away first
   */
  async #handshake(client: RpcClient, watch: LivenessWatch): Promise<void> {
    let buffered: StateUpdateParams[] = [];
    client.onnotification = (method, params) => {
      if (method === Notification.LOG) {
        const p = notificationOf(LogParams, params);
        this.#log(
          p?.level ?? "warn",
          `player: ${p?.message ?? "(a log notification not of the protocol)"}`,
        );
      }
      if (method === Notification.MIDI_LOCAL) {
        const p = notificationOf(MidiLocalParams, params);
        if (p) this.onmidi(p);
      }
      if (method === Notification.EDITOR_EDIT) {
        const p = notificationOf(EditorEditParams, params);
        if (p) this.oneditoredit(p);
      }
      if (method !== Notification.STATE_UPDATE) return;
      const batch = params as StateUpdateParams;
      if (this.#isReady) this.onupdates(batch.updates, batch.now);
      else buffered.push(batch);
    };
    const info = await typedRequest(client, Method.INITIALIZE, {
      protocolVersion: PLAYER_PROTOCOL_VERSION,
      client: this.#options.client ?? { name: "cueport", version: "0" },
      ...(this.#options.forwardEditorEdits ? { forwardEditorEdits: true } : {}),
    }, {});
    refuseIncompatible(info);
    watch.handshakeDone(info.protocolVersion);
    client.batchesActions = hasMinor(info.protocolVersion, 11);
    let cut = 0;
    const snapshot = await typedRequest(client, Method.STATE_GET, undefined, {
      onResponse: () => (cut = buffered.length),
    });
    this.#info = info;
    this.#isReady = true;
    this.onready(snapshot, info);
    for (const batch of buffered.slice(cut)) this.onupdates(batch.updates, batch.now);
    buffered = [];
    for (const waiter of this.#readyWaiters.splice(0)) waiter();
  }

  #sleep(ms: number): Promise<void> {
    this.#wake = Promise.withResolvers<void>();
    const timer = setTimeout(() => this.#wake.resolve(), ms);
    return this.#wake.promise.finally(() => clearTimeout(timer));
  }

  #log(level: LogParams["level"], message: string): void {
    this.#options.log?.(level, message);
  }
}

/** A request of the protocol on `client`: its params typed by the method, its result checked (`results.ts`). */
function typedRequest<M extends MethodName>(
  client: RpcClient,
  method: M,
  params: MethodParams<M>,
  options: RequestOptions,
): Promise<MethodResult<M>> {
  const answer = client.request(method, params, options);
  return METHODS[method].checked
    ? answer.then((value) => checkedResult(method, value))
    : answer as Promise<MethodResult<M>>;
}

/**
 * Keeps a player running: launch, handshake, snapshot, and on exit reject
 * what was pending, report not-ready, and restart with backoff; a player that
 * stops answering is killed and restarted. After each start the new snapshot
 * is handed over, so clients can get a `full` update.
 * @module
 */
import {
  type InitializeResult,
  isCompatibleVersion,
  LogParams,
  Method,
  type MethodName,
  type MethodParams,
  type MethodResult,
  METHODS,
  Notification,
  PLAYER_PROTOCOL_VERSION,
  type StateUpdateParams,
} from "../../protocol/methods.ts";
import type { Snapshot, StateUpdate } from "../../protocol/state.ts";
import { CueportError } from "../core/errors.ts";
import type { PlayerConnection } from "../core/player_connection.ts";
import { type RequestOptions, RpcClient } from "./rpc_client.ts";
import { checkedResult, notificationOf } from "./results.ts";
import type { LaunchedPlayer, PlayerLauncher } from "./spawn.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";

/** Restart timing. */
export interface BackoffOptions {
  /** First delay after an exit, ms (default 50). */
  initialMs?: number;
  /** Longest delay, ms (default 5000). */
  maxMs?: number;
  /** A player that stayed up this long resets the delay, ms (default 10000). */
  resetAfterMs?: number;
}

/** Options of the supervisor. */
export interface SupervisorOptions {
  /** Default request timeout, ms (default: the `playerTimeoutMs` setting's). */
  timeoutMs?: number;
  /**
   * How long the player may take to answer `initialize`, ms (default 30000, at least
   * `timeoutMs`): it opens its Project first, which on a first start makes the demo's media
   * and on a loaded machine or with a large Project takes longer than a request.
   */
  handshakeTimeoutMs?: number;
  backoff?: BackoffOptions;
  log?: (level: "info" | "warn" | "error", message: string) => void;
  /** Name and version sent in the handshake. */
  client?: { name: string; version: string };
  /**
   * After this many timeouts in a row the player counts as hung and is
   * restarted (default 3). A request the player reports progress on does not
   * time out, and one queued behind an older pending request does not count
   * (`RpcClient`): a busy player is not a hung one.
   */
  maxTimeouts?: number;
}

/** Throws unless the player speaks a protocol version this service can talk to. */
function refuseIncompatible(info: InitializeResult): void {
  if (!isCompatibleVersion(info.protocolVersion, PLAYER_PROTOCOL_VERSION)) {
    throw new Error(
      `player speaks protocol ${info.protocolVersion}, not ${PLAYER_PROTOCOL_VERSION}`,
    );
  }
}

/** Supervises one player at a time. */
export class PlayerSupervisor implements PlayerConnection {
  onready: (snapshot: Snapshot, info: InitializeResult) => void = () => {};
  onupdates: (updates: StateUpdate[], now: number) => void = () => {};
  ondown: (reason: string) => void = () => {};
  #launcher: PlayerLauncher;
  #options: SupervisorOptions;
  #client: RpcClient | null = null;
  #launched: LaunchedPlayer | null = null;
  #info: InitializeResult | null = null;
  #isReady = false;
  #isStopping = false;
  #restarts = 0;
  #loop: Promise<void> | null = null;
  #wake = Promise.withResolvers<void>();
  #readyWaiters: Array<() => void> = [];

  /** Builds a supervisor; `start()` launches the first player. */
  constructor(launcher: PlayerLauncher, options: SupervisorOptions = {}) {
    this.#launcher = launcher;
    this.#options = options;
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
    options?: RequestOptions,
  ): Promise<MethodResult<M>> {
    if (!this.#isReady || !this.#client) {
      return Promise.reject(
        new CueportError("NOT_READY", "The player is not ready; try again shortly"),
      );
    }
    return typedRequest(this.#client, method, params, {
      timeoutMs: this.#options.timeoutMs ?? SETTING_DEFAULTS.playerTimeoutMs,
      ...options,
    });
  }

  /** Asks the player to shut down, waits for it (killing it after `graceMs`), stops restarting. */
  async stop(graceMs = 3000): Promise<void> {
    this.#isStopping = true;
    this.#wake.resolve();
    const launched = this.#launched;
    if (this.#client && launched) {
      await typedRequest(this.#client, Method.SHUTDOWN, undefined, { timeoutMs: graceMs }).catch(
        () => {},
      );
      const timer = setTimeout(() => launched.kill(), graceMs);
      await launched.exited.catch(() => {});
      clearTimeout(timer);
    }
    await this.#client?.close();
    await this.#loop;
  }

  async #run(): Promise<void> {
    let delay = this.#options.backoff?.initialMs ?? 50;
    while (!this.#isStopping) {
      const startedAt = performance.now();
      const reason = await this.#runOnce();
      this.#isReady = false;
      if (this.#isStopping) break;
      this.ondown(reason);
      this.#log("warn", `Player down (${reason}); restarting in ${delay} ms`);
      const ranFor = performance.now() - startedAt;
      if (ranFor >= (this.#options.backoff?.resetAfterMs ?? 10_000)) {
        delay = this.#options.backoff?.initialMs ?? 50;
      }
      await this.#sleep(delay);
      delay = Math.min(delay * 2, this.#options.backoff?.maxMs ?? 5000);
      this.#restarts++;
    }
  }

  /** One player's life; resolves with why it ended. */
  async #runOnce(): Promise<string> {
    let launched: LaunchedPlayer;
    try {
      launched = await this.#launcher.launch();
    } catch (error) {
      return `cannot launch: ${(error as Error).message}`;
    }
    this.#launched = launched;
    const client = new RpcClient(launched.transport, {
      timeoutMs: this.#options.timeoutMs ?? SETTING_DEFAULTS.playerTimeoutMs,
    });
    this.#client = client;
    // A player that stops answering is as good as dead: end it so it restarts.
    client.ontimeout = (inRow) => {
      if (inRow !== (this.#options.maxTimeouts ?? 3)) return;
      this.#log("error", "Player hung: no answer to several requests in a row; restarting it");
      launched.kill();
    };
    let buffered: StateUpdateParams[] = [];
    client.onnotification = (method, params) => {
      if (method === Notification.LOG) {
        const p = notificationOf(LogParams, params);
        this.#log("info", `player: ${p?.message ?? "(a log notification not of the protocol)"}`);
      }
      if (method !== Notification.STATE_UPDATE) return;
      const batch = params as StateUpdateParams;
      if (this.#isReady) this.onupdates(batch.updates, batch.now);
      else buffered.push(batch);
    };
    const reading = client.start();
    const ended = Promise.race([
      launched.exited.then(() => "exited"),
      reading.then(() => "closed"),
    ]);
    try {
      const timeoutMs = this.#options.timeoutMs ?? SETTING_DEFAULTS.playerTimeoutMs;
      const info = await typedRequest(client, Method.INITIALIZE, {
        protocolVersion: PLAYER_PROTOCOL_VERSION,
        client: this.#options.client ?? { name: "cueport", version: "0" },
      }, { timeoutMs: Math.max(timeoutMs, this.#options.handshakeTimeoutMs ?? 30_000) });
      refuseIncompatible(info);
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
    } catch (error) {
      this.#log("error", `Player handshake failed: ${(error as Error).message}`);
      launched.kill();
    }
    const why = await ended;
    launched.kill(); // a player that closed its output but lingers is ended
    await client.close();
    return why;
  }

  #sleep(ms: number): Promise<void> {
    this.#wake = Promise.withResolvers<void>();
    const timer = setTimeout(() => this.#wake.resolve(), ms);
    return this.#wake.promise.finally(() => clearTimeout(timer));
  }

  #log(level: "info" | "warn" | "error", message: string): void {
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

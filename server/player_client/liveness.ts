/**
 * Whether the player still works, judged by progress, never by how fast one
 * answer comes: a `heartbeat` (protocol 1.5) every second, answered by the
 * player beside its request order with its figures. The player is hung only
 * when it sent nothing for `silentMs` (no heartbeat answered, no message), or
 * when its loop turns but the request holding its order made no progress (its
 * handled counter, an answer, a `request.progress`) for the much longer
 * `stuckMs`. A player of an older minor, without heartbeats, is judged by any
 * message it sends while requests wait for it. Slow answers are logged, at
 * most one line a minute (`SlowLog`).
 *
 * Silence is counted in time the service was awake to hear: each tick adds
 * the time since the last one, at most two heartbeat intervals. A service
 * that was itself starved for a minute reads the answers waiting in its pipe
 * before it can count that minute against the player.
 * @module
 */
import { RpcError, RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { type HeartbeatResult, Method } from "../../protocol/methods.ts";
import type { RpcClient } from "./rpc_client.ts";
import { checkedResult } from "./results.ts";
import type { WatchClock } from "./watch_clock.ts";
import { figuresOf, seconds, SlowLog } from "./slow_log.ts";

/** How the watch judges the player, ms. */
export interface LivenessBounds {
  /** Nothing from the player (no heartbeat answered, no message) this long: hung. */
  silentMs: number;
  /** Its loop turns but the request holding its order made no progress this long: hung. */
  stuckMs: number;
  /** The player did not answer `initialize` this long after its launch: hung. */
  handshakeMs: number;
  /** A heartbeat is sent this often (one at a time). */
  heartbeatMs: number;
  /** An answer slower than this is logged as slow (one line a minute at most). */
  slowMs: number;
}

/** Options of a `LivenessWatch`. */
export interface LivenessOptions {
  clock: WatchClock;
  bounds: LivenessBounds;
  log: (level: "info" | "warn" | "error", message: string) => void;
  /** Called once with the verdict ("silent: ...", "stuck: ...") when the player is hung. */
  onhung: (verdict: string) => void;
  /** Called with each heartbeat answer. */
  onheartbeat?: (figures: HeartbeatResult) => void;
}

/** Watches one player's session, from its launch to its end. */
export class LivenessWatch {
  #client: RpcClient;
  #options: LivenessOptions;
  #stopTicks: (() => void) | null = null;
  /** null during the handshake; then whether the player answers heartbeats. */
  #hasHeartbeat: boolean | null = null;
  #protocolVersion = "";
  #isHeartbeatOut = false;
  #heartbeatSentAt = 0;
  #last: HeartbeatResult | null = null;
  #lastHeartbeatAt: number | null = null;
  #slow: SlowLog;
  #lastTickAt: number;
  /**
   * Awake time since the launch, since the last message, since the last message
   * while requests waited, since the last progress, ms.
   */
  #sinceLaunch = 0;
  #silentFor = 0;
  #waitedFor = 0;
  #stalledFor = 0;

  /** Watches the player behind `client`; `start()` begins the ticks. */
  constructor(client: RpcClient, options: LivenessOptions) {
    this.#client = client;
    this.#options = options;
    this.#lastTickAt = options.clock.now();
    this.#slow = new SlowLog(
      options.clock,
      (line) => options.log("warn", line),
      () => this.#figures(),
    );
    client.onanswer = (method, ms) => {
      if (ms >= options.bounds.slowMs) this.#slow.note(`${method} answered after ${seconds(ms)}`);
    };
  }

  /** The player's last heartbeat answer, or null before the first. */
  get last(): HeartbeatResult | null {
    return this.#last;
  }

  /** Begins ticking (the handshake bound first). */
  start(): void {
    this.#stopTicks ??= this.#options.clock.every(
      this.#options.bounds.heartbeatMs,
      () => this.#tick(),
    );
  }

  /** The handshake is done: heartbeats start when the player's minor has them (1.5). */
  handshakeDone(protocolVersion: string): void {
    const [major = 0, minor = 0] = protocolVersion.split(".").map(Number);
    this.#protocolVersion = protocolVersion;
    this.#hasHeartbeat = major > 1 || (major === 1 && minor >= 5);
    if (!this.#hasHeartbeat) this.#announceNoHeartbeat();
    this.#beat();
  }

  /** Stops the ticks. */
  stop(): void {
    this.#stopTicks?.();
    this.#stopTicks = null;
  }

  #tick(): void {
    this.#count();
    const verdict = this.#verdict();
    if (verdict) {
      this.stop();
      this.#options.onhung(verdict);
      return;
    }
    const waited = this.#options.clock.now() - this.#heartbeatSentAt;
    if (this.#isHeartbeatOut && waited >= this.#options.bounds.slowMs) {
      this.#slow.note(`no heartbeat answer for ${seconds(waited)}`);
    }
    this.#beat();
  }

  /** Adds the awake time since the last tick to the silence and the stall, or resets them. */
  #count(): void {
    const now = this.#options.clock.now();
    const step = Math.min(now - this.#lastTickAt, 2 * this.#options.bounds.heartbeatMs);
    const client = this.#client;
    this.#sinceLaunch += step;
    const heard = client.lastMessageAt >= this.#lastTickAt;
    this.#silentFor = heard ? 0 : this.#silentFor + step;
    this.#waitedFor = heard || client.pendingCount === 0 ? 0 : this.#waitedFor + step;
    this.#stalledFor = client.lastProgressAt >= this.#lastTickAt ? 0 : this.#stalledFor + step;
    this.#lastTickAt = now;
  }

  /** Why the player counts as hung now, with the figures; null while it makes progress. */
  #verdict(): string | null {
    const { silentMs, stuckMs, handshakeMs } = this.#options.bounds;
    const client = this.#client;
    if (this.#hasHeartbeat === null) {
      const waited = this.#sinceLaunch;
      if (waited < handshakeMs) return null;
      return `no answer to initialize ${seconds(waited)} after its start (bound ${
        seconds(handshakeMs)
      })`;
    }
    const silentFor = this.#silentFor;
    if (!this.#hasHeartbeat) {
      const bound = client.quietBound(stuckMs);
      if (bound === null || this.#waitedFor < bound) return null;
      return `silent: no message for ${seconds(this.#waitedFor)} while requests waited (bound ${
        seconds(bound)
      }, no heartbeats before protocol 1.5); ${this.#figures()}`;
    }
    if (silentFor >= silentMs) {
      return `silent: no heartbeat answered and no message for ${seconds(silentFor)} (bound ${
        seconds(silentMs)
      }); ${this.#figures()}`;
    }
    const stalled = this.#stalledFor;
    if (this.#last?.busy && client.oldestPending() && stalled >= stuckMs) {
      return `stuck: heartbeats answered, but ${this.#last.busy.method} held the order with no progress for ${
        seconds(stalled)
      } (bound ${seconds(stuckMs)}); ${this.#figures()}`;
    }
    return null;
  }

  /** Sends a heartbeat unless one is out (or the player has none). */
  #beat(): void {
    if (!this.#hasHeartbeat || this.#isHeartbeatOut) return;
    this.#isHeartbeatOut = true;
    this.#heartbeatSentAt = this.#options.clock.now();
    this.#client.request(Method.HEARTBEAT).then((value) => {
      this.#isHeartbeatOut = false;
      this.#heard(checkedResult(Method.HEARTBEAT, value));
    }).catch((error) => {
      this.#isHeartbeatOut = false;
      if (error instanceof RpcError && error.code === RpcErrorCode.METHOD_NOT_FOUND) {
        this.#hasHeartbeat = false;
        this.#announceNoHeartbeat();
      }
      // Else the session ended (NOT_READY), or an answer that does not fit: its arrival still
      // counted as a message.
    });
  }

  #heard(figures: HeartbeatResult): void {
    const before = this.#last;
    // The counter moved, or a request began to hold the order: that is progress.
    if (before && (figures.handled !== before.handled || (!before.busy && figures.busy))) {
      this.#client.progressed();
    }
    this.#last = figures;
    this.#lastHeartbeatAt = this.#options.clock.now();
    this.#options.onheartbeat?.(figures);
  }

  #announceNoHeartbeat(): void {
    this.#options.log(
      "info",
      `The player (protocol ${this.#protocolVersion}) answers no heartbeat: it is judged by the messages it sends`,
    );
  }

  #figures(): string {
    const now = this.#options.clock.now();
    return figuresOf({
      last: this.#last,
      lastHeartbeatAgoMs: this.#lastHeartbeatAt === null ? null : now - this.#lastHeartbeatAt,
      lastMessageAgoMs: now - this.#client.lastMessageAt,
      pending: this.#client.pendingCount - (this.#isHeartbeatOut ? 1 : 0),
      oldest: this.#client.oldestPending(),
    });
  }
}

/**
 * What the liveness tests drive: a clock they advance (`ManualClock`) and a
 * stand-in player over an in-memory transport pair that answers the handshake
 * and heartbeats as told, and holds the other requests until the test answers
 * them, so "slow", "silent" and "stuck" are made on purpose, not by waiting.
 * @module
 */
import { memoryTransportPair, type Transport } from "../../../protocol/transport.ts";
import { PLAYER_PROTOCOL_VERSION } from "../../../protocol/methods.ts";
import type { RpcRequest } from "../../../protocol/jsonrpc.ts";
import type { Snapshot } from "../../../protocol/state.ts";
import type { LaunchedPlayer } from "../../../server/player_client/mod.ts";
import type { WatchClock } from "../../../server/player_client/watch_clock.ts";

/** A clock that moves only when the test advances it; its ticks fire on the way. */
export class ManualClock implements WatchClock {
  #now = 0;
  #tickers = new Set<{ ms: number; next: number; fn: () => void }>();

  now(): number {
    return this.#now;
  }

  every(ms: number, fn: () => void): () => void {
    const ticker = { ms, next: this.#now + ms, fn };
    this.#tickers.add(ticker);
    return () => this.#tickers.delete(ticker);
  }

  /**
   * Moves time on by `ms`, one tick at a time; after each tick `settle` is
   * awaited (the answers a tick asked for arrive before the next).
   */
  async advance(ms: number, settle: () => Promise<void> = idle): Promise<void> {
    const end = this.#now + ms;
    while (true) {
      const due = [...this.#tickers].filter((t) => t.next <= end).sort((a, b) => a.next - b.next);
      const ticker = due[0];
      if (!ticker) break;
      this.#now = ticker.next;
      ticker.next += ticker.ms;
      ticker.fn();
      await settle();
    }
    this.#now = end;
  }

  /** Moves time on by `ms` without firing a tick: the service itself was starved meanwhile. */
  jump(ms: number): void {
    this.#now += ms;
    for (const ticker of this.#tickers) ticker.next = Math.max(ticker.next, this.#now);
  }
}

/** A few turns of the event loop: in-memory messages (microtasks, a MessageChannel) arrive. */
export async function idle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** How the stand-in behaves; the test may change it while it runs. */
export interface StandInBehaviour {
  /** Answer heartbeats (a player whose loop turns); false: a silent, hung player. */
  heartbeats: boolean;
  /** Answer heartbeats METHOD_NOT_FOUND (a player of protocol 1.4). */
  isLegacy: boolean;
  /** What the heartbeat says holds the order (`busy`), null when idle. */
  busy: string | null;
  /** The `handled` counter heartbeats report. */
  handled: number;
  /** Answer `initialize` (false: a player that hangs while it starts). */
  answersInitialize: boolean;
  /** Methods answered at once, with these results (the others are held). */
  answers: Record<string, unknown>;
}

/** A launched stand-in: the requests it holds, and a way to answer them. */
export interface StandIn {
  /** Requests received and not answered (heartbeats aside), in order. */
  held: RpcRequest[];
  heartbeatsAnswered: number;
  /** Answers a held request with `result` (the oldest of `method`). */
  answer(method: string, result: unknown): Promise<void>;
  /** Sends a notification (a log line, progress). */
  notify(method: string, params: unknown): Promise<void>;
  isClosed: boolean;
}

/** A launcher of stand-ins sharing one behaviour. */
export interface StandInLauncher {
  behaviour: StandInBehaviour;
  /** Every stand-in launched, oldest first. */
  players: StandIn[];
  launch(): Promise<LaunchedPlayer>;
}

/** Launches stand-in players with one shared behaviour; `players` lists them, oldest first. */
export function standInLauncher(behaviour: Partial<StandInBehaviour> = {}): StandInLauncher {
  const state: StandInBehaviour = {
    heartbeats: true,
    isLegacy: false,
    busy: null,
    handled: 0,
    answersInitialize: true,
    answers: {},
    ...behaviour,
  };
  const players: StandIn[] = [];
  return {
    behaviour: state,
    players,
    launch(): Promise<LaunchedPlayer> {
      const [serverSide, playerSide] = memoryTransportPair();
      const exited = Promise.withResolvers<void>();
      const player = standIn(playerSide, state);
      playerSide.onclose = () => {
        player.isClosed = true;
        exited.resolve();
      };
      players.push(player);
      void playerSide.start();
      return Promise.resolve({
        transport: serverSide,
        exited: exited.promise,
        kill: () => void playerSide.close(),
        pid: null,
      });
    },
  };
}

function standIn(side: Transport, state: StandInBehaviour): StandIn {
  const reply = (id: unknown, result: unknown) =>
    side.send({ jsonrpc: "2.0", id: id as number, result }).catch(() => {});
  const player: StandIn = {
    held: [],
    heartbeatsAnswered: 0,
    isClosed: false,
    async answer(method, result) {
      const index = player.held.findIndex((r) => r.method === method);
      if (index < 0) throw new Error(`No ${method} is held`);
      const [request] = player.held.splice(index, 1);
      state.handled++;
      await reply(request!.id, result);
    },
    notify: (method, params) => side.send({ jsonrpc: "2.0", method, params }),
  };
  side.onmessage = (message) => {
    const request = message as RpcRequest;
    if (request.method === "initialize") {
      if (state.answersInitialize) {
        void reply(request.id, {
          protocolVersion: state.isLegacy ? "1.4" : PLAYER_PROTOCOL_VERSION,
          player: { name: "stand-in", version: "0" },
          capabilities: { virtualClock: false, progress: true },
        });
      }
    } else if (request.method === "state.get") {
      void reply(request.id, EMPTY_SNAPSHOT);
    } else if (request.method === "heartbeat") {
      if (state.isLegacy) {
        void side.send({
          jsonrpc: "2.0",
          id: request.id as number,
          error: { code: -32601, message: 'Unknown method "heartbeat"' },
        }).catch(() => {});
      } else if (state.heartbeats) {
        player.heartbeatsAnswered++;
        void reply(request.id, {
          handled: state.handled,
          queued: 0,
          beside: 0,
          busy: state.busy === null ? null : { method: state.busy, forMs: 0 },
          output: null,
        });
      }
    } else if (request.method in state.answers) {
      void reply(request.id, state.answers[request.method]);
    } else player.held.push(request);
  };
  return player;
}

/** The snapshot of a player with nothing in it. */
const EMPTY_SNAPSHOT: Partial<Snapshot> = {
  projects: [],
  playstates: [],
  live: {},
  presets: [],
  cameras: [],
};

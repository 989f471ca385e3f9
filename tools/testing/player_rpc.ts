/**
 * A player over an in-memory pipe, for the tests of its JSON-RPC interface
 * (`tests/player/rpc_*_test.ts`): calls answered by id, every message it sent.
 * @module
 */
import { memoryTransportPair, type Transport } from "../../protocol/transport.ts";
import type { RpcMessage } from "../../protocol/jsonrpc.ts";
import { type RunningPlayer, startPlayer, VirtualClock } from "../../player/mod.ts";
import { fixtureDataDir } from "./fixture.ts";

/** An answer, read loosely: the assertions say what it must hold. */
// deno-lint-ignore no-explicit-any
export type RpcAnswer = { id: number; result?: any; error?: any };

/** A player over an in-memory pipe, as the tests drive it. */
export interface PlayerLink {
  /** Sends a request; its answer. */
  call(method: string, params?: unknown): Promise<RpcAnswer>;
  /** Every message the player sent, in order. */
  readonly seen: RpcMessage[];
  /**
   * The first message the player sent (or sends) that `match` takes: an event, no clock. It
   * rejects once the player's run ends first, so a wait for what never comes does not hang.
   */
  waitFor(match: (m: RpcMessage) => boolean): Promise<RpcMessage>;
  readonly clock: VirtualClock;
  /** Closes the pipe, waits for the player's end and removes its data dir. */
  close(): Promise<void>;
  readonly dataDir: string;
  readonly running: RunningPlayer;
  /** The service's end of the pipe. */
  readonly serverSide: Transport;
}

/** A player on a fixture data dir with a virtual clock, before its handshake, and every message it sent. */
export async function connectPlayer(): Promise<PlayerLink> {
  const dataDir = await fixtureDataDir();
  const [serverSide, playerSide] = memoryTransportPair();
  const clock = new VirtualClock();
  const running = await startPlayer({
    dataDir,
    transport: playerSide,
    clock,
    positionIntervalMs: 0,
  });
  const seen: RpcMessage[] = [];
  let next = 1;
  const waiters = new Map<number, (m: RpcMessage) => void>();
  const watchers = new Set<(m: RpcMessage) => void>();
  serverSide.onmessage = (m) => {
    seen.push(m);
    if ("id" in m && typeof m.id === "number") waiters.get(m.id)?.(m);
    for (const watch of watchers) watch(m);
  };
  const waitFor = (match: (m: RpcMessage) => boolean): Promise<RpcMessage> => {
    const already = seen.find(match);
    if (already) return Promise.resolve(already);
    const { promise, resolve, reject } = Promise.withResolvers<RpcMessage>();
    const watch = (m: RpcMessage) => match(m) && (watchers.delete(watch), resolve(m));
    watchers.add(watch);
    running.done.then(() => reject(new Error("The player's run ended first")), reject);
    return promise;
  };
  void serverSide.start();
  const call = (method: string, params?: unknown): Promise<RpcAnswer> => {
    const id = next++;
    const { promise, resolve } = Promise.withResolvers<RpcMessage>();
    waiters.set(id, resolve);
    void serverSide.send({ jsonrpc: "2.0", id, method, params });
    return promise as Promise<RpcAnswer>;
  };
  const close = async () => {
    await serverSide.close();
    await running.done;
    await Deno.remove(dataDir, { recursive: true });
  };
  return { call, seen, waitFor, clock, close, dataDir, running, serverSide };
}

/** A player past the handshake (`initialize` at `protocolVersion`). */
export async function connectInitialized(protocolVersion = "1.0"): Promise<PlayerLink> {
  const p = await connectPlayer();
  await p.call("initialize", { protocolVersion, client: { name: "t", version: "0" } });
  return p;
}

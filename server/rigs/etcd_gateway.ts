/**
 * `Etcd` over etcd's JSON gateway (`/v3/...` on each member's client URL)
 * with `fetch`: no dependency, and nothing the compiled binary's permissions
 * lack (`npm:etcd3`'s gRPC reads GRPC_* variables; docs/rigs.md, The client).
 * The gateway has no failover: this client moves to the next member itself
 * when one does not answer within `timeoutMs`, and every watch it runs moves
 * with it (restarted from the revision after the last it delivered).
 * @module
 */
import {
  type Etcd,
  EtcdError,
  EtcdUnavailable,
  type Kv,
  type Txn,
  type TxnAnswer,
  type WatchEvent,
  type WatchOptions,
} from "./etcd.ts";
import { pause } from "./_pause.ts";
import { prefixEnd, toBase64, txnBody, type WireKv, wireKv } from "./_wire.ts";

/** Options of the gateway client. */
export interface GatewayOptions {
  /** A request not answered this long moves the client to the next member (default 1000). */
  timeoutMs?: number;
}

/** gRPC codes that say "this member cannot answer now": try the next. */
const UNAVAILABLE_CODES = new Set([4, 14]); // DeadlineExceeded, Unavailable

/** The etcd of a group through the JSON gateway of its members (`endpoints`: client URLs). */
export class GatewayEtcd implements Etcd {
  readonly #endpoints: readonly string[];
  readonly #timeoutMs: number;
  #current = 0;
  /** Bumped on each move to another member: the watches restart on the new one. */
  #moved = new AbortController();

  /** `endpoints`: the members' client URLs (`http://10.0.0.2:2379`), tried in turn. */
  constructor(endpoints: readonly string[], options: GatewayOptions = {}) {
    if (endpoints.length === 0) throw new RangeError("Cannot use etcd: no endpoint given");
    this.#endpoints = endpoints.map((e) => e.replace(/\/+$/, ""));
    this.#timeoutMs = options.timeoutMs ?? 1000;
  }

  get endpoint(): string {
    return this.#endpoints[this.#current]!;
  }

  async range(
    key: string,
    options: { prefix?: boolean } = {},
  ): Promise<{ kvs: Kv[]; revision: number }> {
    const body = { key: toBase64(key), ...(options.prefix ? { range_end: prefixEnd(key) } : {}) };
    const answer = await this.#call("/v3/kv/range", body, true);
    const kvs = ((answer.kvs ?? []) as WireKv[]).map(wireKv);
    return { kvs, revision: revisionOf(answer) };
  }

  async put(key: string, value: string, lease?: string): Promise<number> {
    const body = { key: toBase64(key), value: toBase64(value), ...(lease ? { lease } : {}) };
    return revisionOf(await this.#call("/v3/kv/put", body, true));
  }

  async txn(txn: Txn): Promise<TxnAnswer> {
    const answer = await this.#call("/v3/kv/txn", txnBody(txn), false);
    const responses = (answer.responses ?? []) as Array<Record<string, { kvs?: WireKv[] }>>;
    const ranges: Kv[][] = responses.filter((r) => r.response_range)
      .map((r) => (r.response_range!.kvs ?? []).map(wireKv));
    return { succeeded: answer.succeeded === true, revision: revisionOf(answer), ranges };
  }

  async grant(ttlSeconds: number): Promise<string> {
    const answer = await this.#call("/v3/lease/grant", { TTL: ttlSeconds }, true);
    return String(answer.ID);
  }

  async keepAlive(lease: string): Promise<number> {
    const answer = await this.#call("/v3/lease/keepalive", { ID: lease }, true);
    const result = (answer.result ?? {}) as { TTL?: string };
    return Number(result.TTL ?? 0);
  }

  async revoke(lease: string): Promise<void> {
    await this.#call("/v3/lease/revoke", { ID: lease }, true);
  }

  /**
   * Watches `prefix`: one stream on the member in use, restarted from the next
   * revision when it ends or the client moves to another member; ends with `signal`.
   */
  async watch(prefix: string, options: WatchOptions): Promise<void> {
    let next = options.fromRevision;
    while (!options.signal.aborted) {
      const moved = this.#moved.signal;
      const stop = AbortSignal.any([options.signal, moved]);
      try {
        await this.#watchOnce(prefix, next, stop, (events, revision) => {
          if (events.length === 0) {
            // The stream's start. From now (0): from then on, on every restart too.
            if (next === 0) next = revision + 1;
            return;
          }
          next = revision + 1;
          options.onEvents(events, revision);
        });
      } catch (error) {
        // Its start was compacted away: on from the oldest revision etcd has, the caller told.
        if (error instanceof Compacted) {
          next = error.revision;
          options.onCompacted?.(error.revision);
          continue;
        }
        // The member went away: the next turn goes to the member in use then.
      }
      if (options.signal.aborted) return;
      // Ended without a move (the member closed it): move on, but not in a busy loop.
      if (!moved.aborted) await pause(this.#timeoutMs / 4, options.signal);
    }
  }

  /** Compacts etcd's history up to `revision` (`/v3/kv/compaction`; sent once). */
  async compact(revision: number): Promise<void> {
    await this.#call("/v3/kv/compaction", { revision: String(revision) }, false);
  }

  /**
   * Moves the client to the next member now (a caller that saw the member in
   * use answer nothing sensible; a watch that went silent).
   */
  moveOn(): void {
    this.#current = (this.#current + 1) % this.#endpoints.length;
    this.#moved.abort();
    this.#moved = new AbortController();
  }

  async #watchOnce(
    prefix: string,
    from: number,
    signal: AbortSignal,
    deliver: (events: WatchEvent[], revision: number) => void,
  ): Promise<void> {
    const create = {
      key: toBase64(prefix),
      range_end: prefixEnd(prefix),
      ...(from > 0 ? { start_revision: String(from) } : {}),
    };
    const response = await fetch(`${this.endpoint}/v3/watch`, {
      method: "POST",
      body: JSON.stringify({ create_request: create }),
      signal,
    });
    if (!response.ok || !response.body) throw new EtcdUnavailable(`watch: ${response.status}`);
    let buffered = "";
    for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
        const line = buffered.slice(0, end).trim();
        buffered = buffered.slice(end + 1);
        if (line !== "") deliverLine(line, deliver);
      }
    }
  }

  /**
   * POSTs `body` to `path` on the member in use, moving to the next on no answer;
   * a request that is not `isRetried` is sent once and an unknown outcome rejects.
   */
  async #call(path: string, body: unknown, isRetried: boolean): Promise<Record<string, unknown>> {
    const problems: string[] = [];
    const tries = isRetried ? this.#endpoints.length : 1;
    for (let i = 0; i < tries; i++) {
      const endpoint = this.endpoint;
      try {
        return await this.#post(endpoint, path, body);
      } catch (error) {
        if (error instanceof EtcdError) throw error;
        problems.push(`${endpoint}: ${(error as Error).message}`);
        if (this.endpoint === endpoint) this.moveOn();
      }
    }
    throw new EtcdUnavailable(`No etcd member answered ${path}: ${problems.join("; ")}`);
  }

  async #post(endpoint: string, path: string, body: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${endpoint}${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.#timeoutMs),
    });
    const answer = await response.json() as Record<string, unknown>;
    const code = Number(answer.code ?? 0);
    if (response.ok && code === 0) return answer;
    const message = String(answer.message ?? answer.error ?? response.statusText);
    if (UNAVAILABLE_CODES.has(code) || response.status >= 500 && code === 0) {
      throw new EtcdUnavailable(message);
    }
    throw new EtcdError(`etcd refused ${path}: ${message}`, code);
  }
}

/** The header's revision of an answer. */
function revisionOf(answer: Record<string, unknown>): number {
  const header = (answer.header ?? {}) as { revision?: string };
  return Number(header.revision ?? 0);
}

/** Delivers one line of a watch stream: its events, or throws when etcd ended the watch. */
function deliverLine(
  line: string,
  deliver: (events: WatchEvent[], revision: number) => void,
): void {
  const message = JSON.parse(line) as {
    result?: {
      header?: { revision?: string };
      events?: Array<{ type?: string; kv: WireKv }>;
      canceled?: boolean;
      created?: boolean;
      cancel_reason?: string;
      compact_revision?: string;
    };
    error?: { message?: string };
  };
  if (message.error) throw new EtcdUnavailable(message.error.message ?? "watch failed");
  const result = message.result ?? {};
  if (result.canceled && Number(result.compact_revision ?? 0) > 0) {
    throw new Compacted(Number(result.compact_revision));
  }
  if (result.canceled) throw new EtcdUnavailable(result.cancel_reason ?? "watch canceled");
  if (result.created) {
    deliver([], Number(result.header?.revision ?? 0)); // the stream's start: nothing before it
    return;
  }
  const events = (result.events ?? []).map((e): WatchEvent => ({
    type: e.type === "DELETE" ? "delete" : "put",
    kv: wireKv(e.kv),
  }));
  if (events.length === 0) return;
  // The batch's revision is its last event's (the header's may be later).
  deliver(events, events[events.length - 1]!.kv.modRevision);
}

/** A watch whose start revision was compacted: `revision` is the oldest etcd still has. */
class Compacted extends Error {
  constructor(readonly revision: number) {
    super(`watch: revisions before ${revision} were compacted`);
  }
}

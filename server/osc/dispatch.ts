/**
 * The dispatch of a message's matches in the address table to the core: each
 * call's arguments become its operation's input (`coerce.ts`), which the one
 * policy authorizes and checks (`Policy.prepare`) before it runs; a value it
 * sets goes through the coalescer, and no sender has more than
 * `MAX_WAITING_CALLS` calls waiting for the player. The answer goes back as
 * `/reply<address>` when one was asked for.
 * @module
 */
import type { Grant } from "../auth/mod.ts";
import {
  type AnyOperation,
  type Caller,
  CueportError,
  type Policy,
  type Prepared,
} from "../core/mod.ts";
import type { OscAddress } from "./addresses.ts";
import { ValueCoalescer, valueKey } from "./coalesce.ts";
import {
  ACTION_OPTIONS,
  actionInput,
  type OscValue,
  queryInput,
  queryOptions,
  splitOptions,
} from "./coerce.ts";
import type { Match } from "./match.ts";
import type { Outbox, Peer, ReplyTo } from "./outbox.ts";

/**
 * Calls of one sender address waiting for the player, beyond coalesced
 * values: past it a call is refused (RATE_LIMITED), so no sender queues more
 * than the player takes.
 */
export const MAX_WAITING_CALLS = 256;

/** What the calls of one row of the address table in a message share (`Dispatch.#row`). */
interface Row {
  entry: OscAddress;
  reply: ReplyTo;
  /** Its arguments and options; null when they were refused (`failure` says why). */
  split: ReturnType<typeof splitOptions> | null;
  /** Why its calls fail: its options were refused. */
  failure: { error: unknown } | null;
  /** Who runs them: the sender, with the grant it was let in with. */
  caller: Caller;
}

/** One message's calls, as the port hands them over. */
export interface Calls {
  /** The address the message was sent to (a pattern may match many rows). */
  address: string;
  /** Its rows, matched and charged to the sender. */
  matches: readonly Match[];
  /** Its arguments. */
  values: OscValue[];
  /** The sender, and the grant it was let in with. */
  peer: Peer;
  grant: Grant;
  /** Its key at a rig of a group (`bundleKey`, `senderKey`): actions carry it to the group. */
  key?: string;
}

/** Runs the calls of the address table through the one policy, and answers them. */
export class Dispatch {
  #policy: Policy;
  #outbox: Outbox;
  #values = new ValueCoalescer();
  /** Calls waiting for the player, by sender address (`MAX_WAITING_CALLS`). */
  #waiting = new Map<string, number>();
  #failed = 0;

  /** Builds the dispatch over the server's policy and outbox. */
  constructor(options: { policy: Policy; outbox: Outbox }) {
    this.#policy = options.policy;
    this.#outbox = options.outbox;
  }

  /** Calls that ended in an error, since start (the `/ping` reply reports it). */
  get failed(): number {
    return this.#failed;
  }

  /** Runs each match of a message; the calls of one row share its options (`/control/*` makes 26). */
  run(calls: Calls): void {
    let row: Row | null = null;
    const { key, matches } = calls;
    for (const [i, match] of matches.entries()) {
      if (row?.entry !== match.entry) {
        row = this.#row(match.entry, calls.values, calls.peer, calls.grant);
      }
      const retry = key === undefined ? undefined : matches.length > 1 ? `${key}.${i}` : key;
      this.#call(match, row, calls.address, calls.peer, retry);
    }
  }

  /** Counts a call that failed (`/ping` says how many), and logs it when it is a fault. */
  fail(address: string, error: unknown): void {
    this.#failed++;
    this.#outbox.logFault(address, error);
  }

  /** What the calls of one row in a message share: its options, and who runs them. */
  #row(entry: OscAddress, values: OscValue[], peer: Peer, grant: Grant): Row {
    const isQuery = entry.kind === "query";
    const isNamed = isQuery || entry.kind === "operation"; // arguments by position or name=value
    const caller: Caller = { address: peer.address, isLocal: peer.isLocal, grant };
    const row: Row = { entry, reply: isQuery ? true : null, split: null, failure: null, caller };
    try {
      row.split = splitOptions(values, isNamed ? queryOptions(entry) : ACTION_OPTIONS);
      if (row.split.options.reply !== null) row.reply = row.split.options.reply;
    } catch (error) {
      row.failure = { error };
    }
    return row;
  }

  #call(match: Match, row: Row, address: string, peer: Peer, key?: string): void {
    const { entry } = match;
    let result: unknown;
    try {
      if (row.split === null) throw row.failure!.error; // its options were refused
      const { values, named } = row.split;
      const input = entry.kind === "query" || entry.kind === "operation"
        ? queryInput(entry, values, named)
        : actionInput(entry, match.fromPath, values, named);
      // The one path: authorized (the plan, the scope) and checked, run when the coalescer says.
      // Only an action carries the key (the group's dedupe): an edit's retries are its own.
      const retry = key === undefined || entry.operation.name !== "action"
        ? undefined
        : { key, field: "An OSC message's sender and timetag" };
      const prepared = this.#policy.prepare(entry.operation, row.caller, input, {
        where: address,
        retry,
      });
      // With the sender's grant given, `prepare` never waits for a token.
      result = this.#run(entry.operation, prepared as Prepared, peer, row.reply !== null);
    } catch (error) {
      this.fail(address, error);
      return this.#outbox.answer(peer, { address, reply: row.reply }, { error });
    }
    const call = { address, reply: row.reply };
    if (!(result instanceof Promise)) return this.#outbox.answer(peer, call, { data: result });
    if (call.reply === null) {
      result.catch((error) => this.fail(address, error));
      return;
    }
    result.then(
      (data) => this.#outbox.answer(peer, call, { data }),
      (error) => {
        this.fail(address, error);
        this.#outbox.answer(peer, call, { error });
      },
    );
  }

  /**
   * Runs an operation. A value it sets goes through the coalescer (joining a
   * call of the same thing that runs, or starting one); every call that goes
   * to the player counts against its sender's waiting calls, and a new one
   * past `MAX_WAITING_CALLS` is refused.
   */
  #run(operation: AnyOperation, prepared: Prepared, peer: Peer, isAwaited: boolean): unknown {
    const call = () => this.#counted(peer.address, prepared.run());
    const key = operation.name === "action" ? valueKey(prepared.input) : null;
    if (key !== null && this.#values.has(key)) return this.#values.run(key, call, isAwaited);
    if ((this.#waiting.get(peer.address) ?? 0) >= MAX_WAITING_CALLS) {
      throw new CueportError(
        "RATE_LIMITED",
        `Too many calls waiting for the player: at most ${MAX_WAITING_CALLS} per sender`,
        { retryAfterSeconds: 1 },
      );
    }
    return key !== null ? this.#values.run(key, call, isAwaited) : call();
  }

  /** A call's `result`, counted among the address's waiting calls while it is awaited. */
  #counted(address: string, result: unknown): unknown {
    if (!(result instanceof Promise)) return result;
    this.#waiting.set(address, (this.#waiting.get(address) ?? 0) + 1);
    const done = () => {
      const left = (this.#waiting.get(address) ?? 1) - 1;
      if (left > 0) this.#waiting.set(address, left);
      else this.#waiting.delete(address);
    };
    result.then(done, done);
    return result;
  }
}

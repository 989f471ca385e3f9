/**
 * Actions in a rig group (docs/rigs.md, One show clock): an action from any client on any rig is
 * given a show time `leadMs` ahead, put in etcd under `/cueport/<group>/actions/<id>` (leased, so
 * entries expire; no leader needed: an action is not a decision), and every rig's watch of that
 * prefix schedules it on its show clock, as a timetagged OSC bundle is scheduled on one machine.
 * The rig that took the action schedules it as soon as etcd has it, and answers its client then.
 * An entry seen after its show time runs at once (after any waiting one of an earlier show time)
 * and is counted late; every entry goes to the player with when it was due, so one run late (a
 * late timer, a late watch) still starts its Clips where they would be (protocol 1.14,
 * `player/actions/late.ts`). Each entry carries a seed: whatever an action chooses at random is
 * chosen from it (`seededChoice`), so every rig chooses the same.
 * @module
 */
import type { NormalizedAction } from "../../protocol/actions.ts";
import type { ActionResult, ActionScheduler } from "../core/action_runner.ts";
import type { Logger } from "../log.ts";
import type { Etcd, WatchEvent } from "./etcd.ts";
import type { ShowClock } from "./clock/show_clock.ts";
import { pause } from "./_pause.ts";
import { dedupeId, isSenderKey, putOnce, putUnlessCopy } from "./dedupe.ts";

/** One action of the group, as etcd holds it (JSON). */
export interface GroupActionEntry {
  /** Unique in the group: the rig's name, its start and a count. */
  id: string;
  /** The rig that took it. */
  from: string;
  /** The show time every rig runs it at, ms. */
  showTime: number;
  /** 32 random bits drawn once, by the rig that took it: the choice of anything random. */
  seed: number;
  action: NormalizedAction;
  idempotencyKey?: string;
}

/** The last action a rig ran, for its status. */
export interface RanAction {
  entry: GroupActionEntry;
  /** How late it ran on this rig's show clock, ms (0: on time). */
  lateMs: number;
  /** What this rig's player answered (its message, or its refusal); null until it answers. */
  outcome: string | null;
}

/** What a `GroupActions` needs. */
export interface GroupActionsOptions {
  etcd: Etcd;
  /** `/cueport/<group>/actions/`. */
  prefix: string;
  /** This rig's name. */
  rig: string;
  group: string;
  show: ShowClock;
  /** How far ahead of now an action is scheduled, ms (setting groupActionLeadMs). */
  leadMs: number;
  /** How long an entry lives in etcd, s (its lease; it has run everywhere long before). */
  ttlSeconds?: number;
  /**
   * Whether this rig has its quorum now (`GroupStatus.canEdit`): when not, an action is not put
   * (a put would wait for members that do not answer) but runs here alone (default: always).
   */
  hasQuorum?: () => boolean;
  /**
   * Runs a checked action on this rig's player now (`ActionRunner.send`), `due` the machine's
   * clock (Unix ms) when its show time was: run late, it starts its Clips where they would be.
   */
  send: (
    action: NormalizedAction,
    idempotencyKey?: string,
    due?: number,
    at?: number,
  ) => Promise<ActionResult>;
  /** The machine's clock, Unix ms, that `due` is given on (default `Date.now`; tests' virtual). */
  wallClock?: () => number;
  log: Logger;
}

/** The first `i` in 0..n-1 an entry's seed chooses: the same on every rig. */
export function seededChoice(seed: number, n: number): number {
  // mulberry32's first output: well spread even for consecutive seeds.
  let t = (seed + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
}

/** A rig's side of the group's actions: `submit` (the runner's scheduler) and the watch. */
export class GroupActions implements ActionScheduler {
  readonly #o: GroupActionsOptions;
  readonly #stopped = new AbortController();
  readonly #seen = new Map<string, () => void>();
  /** The entries waiting for their show time, by id. */
  readonly #waiting = new Map<string, GroupActionEntry>();
  /** Other rigs' keyless entries this rig took as its own copy (`#isCopyOf`). */
  readonly #claimed = new Set<string>();
  readonly #base = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  #count = 0;
  #lease: { id: string; until: number } | null = null;
  #loop: Promise<void> | null = null;
  /** Actions scheduled, and of them those that arrived late. */
  scheduled = 0;
  late = 0;
  last: RanAction | null = null;
  /** The last revision the watch delivered (0: none yet). */
  revision = 0;

  /** Not watching until `start`. */
  constructor(options: GroupActionsOptions) {
    this.#o = options;
  }

  /** Watches the group's actions until `stop`. */
  start(): void {
    this.#loop ??= this.#watchLoop();
  }

  /** Ends the watch and drops what waits. */
  async stop(): Promise<void> {
    this.#stopped.abort();
    for (const cancel of this.#seen.values()) cancel();
    await this.#loop;
  }

  /**
   * Puts the action in etcd for every rig and schedules it here; answers once scheduled. When
   * etcd does not take it (this rig is cut off from the quorum), it runs on this rig alone: the
   * show goes on here, and the answer says so.
   */
  async submit(
    action: NormalizedAction,
    idempotencyKey?: string,
    dedupeKey?: string,
  ): Promise<ActionResult> {
    const { show, leadMs, rig, group } = this.#o;
    let entry: GroupActionEntry = {
      id: dedupeKey === undefined || isSenderKey(dedupeKey)
        ? `${rig}.${this.#base}.${++this.#count}`
        : dedupeId(dedupeKey, action),
      from: rig,
      showTime: show.now() + leadMs,
      seed: crypto.getRandomValues(new Uint32Array(1))[0]!,
      action,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    };
    let where = `every rig of group ${group}`;
    try {
      if (this.#o.hasQuorum?.() === false) throw new Error("this rig is cut off from the quorum");
      const key = `${this.#o.prefix}${
        dedupeKey === undefined ? entry.id : dedupeId(dedupeKey, action)
      }`;
      const lease = await this.#leaseNow();
      // Copies of one action sent to several rigs run once (dedupe.ts): by the client's key, or
      // (`~`: a sender without one) as the same action another rig took for about one show time.
      const value = JSON.stringify(entry);
      const first = dedupeKey === undefined
        ? await this.#o.etcd.put(key, value, lease).then(() => null)
        : isSenderKey(dedupeKey)
        ? await putUnlessCopy(
          this.#o.etcd,
          key,
          { value, lease },
          (text) => this.#isCopyOf(entryOf(text), entry),
        )
        : await putOnce(this.#o.etcd, key, value, lease);
      const copy = entryOf(first ?? "");
      if (copy !== null) [entry, where] = [copy, `${where}, once (rig ${copy.from} took it)`];
    } catch (error) {
      where = `this rig only (etcd did not take it: ${(error as Error).message})`;
      this.#o.log("warn", `Rig group ${group}: action ${action.name} runs on ${where}`);
    }
    this.#schedule(entry);
    const inMs = Math.round(entry.showTime - show.now());
    const result: ActionResult = {
      action: action.name,
      projectId: action.projectId,
      params: action.params,
      applied: true,
      message: `Scheduled on ${where} at show time ${Math.round(entry.showTime)} ms (${
        inMs >= 0 ? `in ${inMs} ms` : `${-inMs} ms late: run at once`
      })`,
    };
    if (action.velocity !== undefined) result.velocity = action.velocity;
    return result;
  }

  /**
   * Whether a keyless entry is `other` rig's copy of `mine`: another rig's, for a show time within
   * the lead of it, and not already taken by this rig (then `mine` is a new action).
   */
  #isCopyOf(other: GroupActionEntry | null, mine: GroupActionEntry): boolean {
    const isCopy = other !== null && other.from !== mine.from &&
      Math.abs(other.showTime - mine.showTime) <= this.#o.leadMs && !this.#claimed.has(other.id);
    if (isCopy) {
      this.#claimed.add(other.id);
      if (this.#claimed.size > 256) this.#claimed.delete(this.#claimed.values().next().value!);
    }
    return isCopy;
  }

  /** A lease for new entries: one per half its time to live, so each entry lives about that. */
  async #leaseNow(): Promise<string> {
    const ttl = this.#o.ttlSeconds ?? 10;
    const now = performance.now();
    if (this.#lease === null || now > this.#lease.until) {
      this.#lease = { id: await this.#o.etcd.grant(ttl), until: now + ttl * 500 };
    }
    return this.#lease.id;
  }

  /** Schedules an entry once (by id) on the show clock; one past its time runs at once. */
  #schedule(entry: GroupActionEntry): void {
    if (this.#seen.has(entry.id)) return;
    const { show } = this.#o;
    this.scheduled++;
    if (entry.showTime <= show.now()) {
      // Late: it runs at once, after any waiting entry of an earlier show time whose own timer
      // has not fired yet (a busy machine), so the order stays the show times'.
      this.late++;
      this.#waiting.set(entry.id, entry);
      this.#seen.set(entry.id, () => {});
      this.#runDue(entry);
    } else {
      try {
        const cancel = show.scheduleAt(entry.showTime, () => this.#runDue(entry));
        this.#waiting.set(entry.id, entry);
        this.#seen.set(entry.id, () => (this.#waiting.delete(entry.id), cancel()));
      } catch (error) {
        // Beyond the show clock's horizon (or too many waiting): dropped here, with why.
        this.#seen.set(entry.id, () => {});
        this.#o.log(
          "warn",
          `Rig group ${this.#o.group}: action ${entry.action.name} from ${entry.from} dropped: ${
            (error as Error).message
          }`,
        );
      }
    }
    // Ids are kept as long as an entry can still be delivered (a watch restarted behind).
    if (this.#seen.size > 4096) this.#seen.delete(this.#seen.keys().next().value!);
  }

  /**
   * Runs every waiting entry due by `fired`'s show time (or now), in the order of their show
   * times and then their ids: the same order on every rig, whichever entry each rig heard of
   * first (its own, or another rig's through the watch). Two actions of one show time (two GOs
   * of a desk's two bundles, each taken by another rig) ran in the order each rig scheduled them,
   * so the rigs could end differently (seen in `dedupe_test.ts` at a load of 6).
   */
  #runDue(fired: GroupActionEntry): void {
    const until = Math.max(this.#o.show.now(), fired.showTime);
    const due = [...this.#waiting.values()].filter((e) => e.showTime <= until).sort(byShowTime);
    for (const entry of due) {
      this.#seen.get(entry.id)?.(); // its own timer, when another's ran it
      this.#waiting.delete(entry.id);
      if (this.#seen.has(entry.id)) this.#seen.set(entry.id, () => {});
      this.#run(entry);
    }
  }

  /**
   * Sends an entry to this rig's player with when it was due: the timer that ran it may have
   * fired late (a loaded machine), and the player, which measures how late where the Clip starts,
   * starts it where it would be had it run on time.
   */
  #run(entry: GroupActionEntry): void {
    const late = this.#o.show.now() - entry.showTime;
    const ran: RanAction = { entry, lateMs: Math.max(0, late), outcome: null };
    this.last = ran;
    const due = (this.#o.wallClock ?? Date.now)() - late;
    // `at`: the entry's show time, decided once: what the action names by the time, every rig alike.
    this.#o.send(entry.action, entry.idempotencyKey, due, entry.showTime).then((result) => {
      ran.outcome = result.message;
    }, (error) => {
      ran.outcome = `Refused: ${(error as Error).message}`;
      this.#o.log(
        "warn",
        `Rig group ${this.#o.group}: action ${entry.action.name} from ${entry.from} failed here: ${
          (error as Error).message
        }`,
      );
    });
  }

  /** The watch of the actions' prefix, from now, restarted after the last revision it saw. */
  async #watchLoop(): Promise<void> {
    while (!this.#stopped.signal.aborted) {
      try {
        await this.#o.etcd.watch(this.#o.prefix, {
          fromRevision: this.revision === 0 ? 0 : this.revision + 1,
          onEvents: (events, revision) => {
            this.revision = revision;
            this.#events(events);
          },
          onCompacted: () => void this.#readAgain(),
          signal: this.#stopped.signal,
        });
      } catch {
        // its member went away: watch again from where it was
      }
      await pause(100, this.#stopped.signal);
    }
  }

  /**
   * The entries etcd holds, scheduled once each (`#seen`): after a compaction hid the watch's
   * gap, whose entries still live under their lease. Tried until etcd answers.
   */
  async #readAgain(): Promise<void> {
    const signal = this.#stopped.signal;
    while (!signal.aborted) {
      try {
        const { kvs } = await this.#o.etcd.range(this.#o.prefix, { prefix: true });
        return this.#events(kvs.map((kv) => ({ type: "put", kv })));
      } catch (error) {
        this.#o.log("debug", `Rig group: actions not read again yet (${(error as Error).message})`);
        await pause(250, signal);
      }
    }
  }

  #events(events: readonly WatchEvent[]): void {
    for (const { type, kv } of events) {
      if (type !== "put") continue;
      const entry = entryOf(kv.value);
      if (entry !== null) this.#schedule(entry);
    }
  }
}

/** An entry of etcd, or null when it is not one (another version's). */
function entryOf(text: string): GroupActionEntry | null {
  try {
    const e = JSON.parse(text) as GroupActionEntry;
    const ok = typeof e.id === "string" && typeof e.from === "string" &&
      Number.isFinite(e.showTime) && typeof e.seed === "number" &&
      typeof e.action?.name === "string";
    return ok ? e : null;
  } catch {
    return null;
  }
}

/** The order entries run in on every rig: by show time, then by id. */
function byShowTime(a: GroupActionEntry, b: GroupActionEntry): number {
  return a.showTime - b.showTime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * One rig in its group (docs/rigs.md): registered under a lease at
 * `/cueport/<group>/rigs/<rig>`, the lease renewed and the record rewritten
 * (its heartbeat) every third of the lease, a campaign key under the same
 * lease (`election.ts`), and a watch of the group's keys (`view.ts`). Each
 * beat is a request a quorum must answer: while one fails, or none has been
 * answered for two thirds of the lease (before etcd can have let the lease
 * run out and another rig lead), the rig knows it is cut off and says edits
 * are not possible; a lease that ran out meanwhile is replaced by a new one,
 * the rig registered and campaigning anew. A follower revokes the lease of a
 * leader silent for a whole lease (`leader_watch.ts`) rather than wait for
 * etcd's lessor to.
 * @module
 */
import type {
  GroupLog,
  GroupProblem,
  GroupStatus,
  RigClock,
  RigRecord,
} from "../../protocol/rigs.ts";
import { type Etcd, EtcdError } from "./etcd.ts";
import { type Campaign, campaign, putOwn, RigNameInUse } from "./election.ts";
import { type GroupKeys, groupKeys } from "./keys.ts";
import { GroupView } from "./view.ts";
import { LeaderWatch } from "./leader_watch.ts";
import type { Logger } from "../log.ts";
import { pause } from "./_pause.ts";

/** Options of a rig in its group. */
export interface RigGroupOptions {
  etcd: Etcd;
  /** The group's name (setting group). */
  group: string;
  /** This rig's name (setting rigName, else the host name). */
  rig: string;
  /** The lease's time to live, seconds (setting groupLeaseSeconds). */
  leaseSeconds: number;
  /** What the record says of this rig besides its name and times (asked at each beat). */
  describe: () => Pick<RigRecord, "addresses" | "ports" | "version">;
  /** The etcd members of the settings, for the status. */
  endpoints: readonly string[];
  log: Logger;
  /** A monotonic clock in ms (default `performance.now`). */
  now?: () => number;
  /** This rig's show clock (`clock_wiring.ts`): started and stopped with the group. */
  clock?: { status(): RigClock; start(): void; stop(): Promise<void> };
}

/** Why edits are not possible: the status's `reasonCode` and `reason`. */
interface Problem {
  code: GroupProblem;
  text: string;
}

/** A rig of a group: `start()` joins, `stop()` leaves, `status()` says how it stands. */
export class RigGroup {
  readonly #o: RigGroupOptions;
  readonly #keys: GroupKeys;
  readonly #view: GroupView;
  readonly #leaderWatch: LeaderWatch;
  readonly #stopped = new AbortController();
  #lease: string | null = null;
  #campaign: Campaign | null = null;
  #startedAt = new Date().toISOString();
  #log: (() => GroupLog) | null = null;
  #problem: Problem | null = {
    code: "GROUP_JOINING",
    text: "Edits are not possible: joining the group",
  };
  /** When the last renewal that etcd answered was sent (its lease runs from no earlier). */
  #renewedAt = -Infinity;
  readonly #now: () => number;
  #watch: AbortController | null = null;
  /** The revision of this rig's last heartbeat, checked against what the watch delivered. */
  #beatRevision = 0;
  /** The last revision the watch of the records delivered (or the full read's). */
  #rigsSeen = 0;
  #staleBeats = 0;
  #loop: Promise<void> | null = null;

  /** A rig that has not joined yet (`start()`). */
  constructor(options: RigGroupOptions) {
    this.#o = options;
    this.#keys = groupKeys(options.group);
    this.#now = options.now ?? (() => performance.now());
    this.#view = new GroupView(this.#keys, this.#now);
    this.#leaderWatch = new LeaderWatch({
      etcd: options.etcd,
      group: options.group,
      leaseMs: options.leaseSeconds * 1000,
      beat: () => this.#view.leaderBeat(options.rig),
      log: options.log,
      now: this.#now,
    });
  }

  /** This rig's campaign while it has one: what `fenced(txn, campaign)` fences a txn with. */
  get campaign(): Campaign | null {
    return this.#campaign;
  }

  /** The etcd the group uses (the edit log shares it). */
  get etcd(): Etcd {
    return this.#o.etcd;
  }

  /** The keys of the group. */
  get keys(): GroupKeys {
    return this.#keys;
  }

  /** Joins and keeps beating until `stop()`; returns at once. */
  start(): void {
    if (this.#loop === null) this.#o.clock?.start();
    this.#loop ??= Promise.all([this.#run(), this.#leaderWatch.run(this.#stopped.signal)])
      .then(() => {});
  }

  /** Leaves the group: the lease revoked (the record and campaign go at once), the watch ended. */
  async stop(): Promise<void> {
    this.#stopped.abort();
    this.#watch?.abort();
    await this.#loop;
    await this.#o.clock?.stop();
    if (this.#lease) await this.#o.etcd.revoke(this.#lease).catch(() => {});
    this.#lease = null;
  }

  /** How this rig stands in its group. */
  status(): GroupStatus {
    const problem = this.#problem ?? this.#lapsing();
    const canEdit = problem === null;
    const leader = this.#view.leader();
    return {
      group: this.#o.group,
      rig: this.#o.rig,
      members: this.#view.members(this.#o.rig),
      leader,
      // A rig cut off from the quorum cannot know whether it still leads: it does not act as if.
      isLeader: canEdit && leader === this.#o.rig,
      canEdit,
      reason: problem?.text ?? null,
      reasonCode: problem?.code ?? null,
      endpoint: this.#o.etcd.endpoint,
      endpoints: [...this.#o.endpoints],
      clock: this.#o.clock?.status() ?? null,
      ...(this.#log ? { log: this.#log() } : {}),
    };
  }

  /** Tells the status how far this rig applied the group's edit log (`replicated_edits.ts`). */
  setLog(source: (() => GroupLog) | null): void {
    this.#log = source;
  }

  /**
   * Why edits are not possible although no beat failed yet: the last renewal
   * answered was sent two thirds of the lease ago or more (a beat is hanging).
   */
  #lapsing(): Problem | null {
    const since = this.#now() - this.#renewedAt;
    if (since < this.#o.leaseSeconds * 2000 / 3) return null;
    const text = `Edits are not possible: etcd has not renewed this rig's lease for ${
      Math.round(since)
    } ms`;
    return { code: "GROUP_NO_QUORUM", text };
  }

  async #run(): Promise<void> {
    const beatMs = this.#o.leaseSeconds * 1000 / 3;
    while (!this.#stopped.signal.aborted) {
      const began = performance.now();
      await this.#beat();
      const rest = beatMs - (performance.now() - began);
      if (rest > 0) await pause(rest, this.#stopped.signal);
    }
  }

  /**
   * One beat: a lease (granted when there is none, else renewed), the record
   * rewritten, the campaign made once per lease, the group read and watched
   * once. A beat that failed halfway finishes at the next.
   */
  async #beat(): Promise<void> {
    const { etcd } = this.#o;
    try {
      const sent = this.#now();
      const lease = await this.#leaseNow();
      this.#beatRevision = await putOwn(etcd, this.#rigKey(), this.#record(), lease);
      if (this.#campaign === null) {
        this.#campaign = await campaign(etcd, `${this.#keys.election}${this.#o.rig}`, lease);
        this.#o.log(
          "info",
          `Rig group ${this.#o.group}: joined as ${this.#o.rig} (${etcd.endpoint})`,
        );
      }
      if (this.#watch === null) await this.#resync();
      this.#renewedAt = sent;
      this.#checkWatch();
      this.#setProblem(null);
    } catch (error) {
      if (this.#stopped.signal.aborted) return;
      if (error instanceof EtcdError && error.code === 5) this.#lost("not found");
      const code = error instanceof RigNameInUse ? error.code : "GROUP_NO_QUORUM";
      this.#setProblem({ code, text: `Edits are not possible: ${(error as Error).message}` });
    }
  }

  /** This rig's lease: granted when it has none, else renewed (one that ran out is lost). */
  async #leaseNow(): Promise<string> {
    const { etcd, leaseSeconds } = this.#o;
    if (this.#lease === null) {
      this.#lease = await etcd.grant(leaseSeconds);
      this.#startedAt = new Date().toISOString();
      return this.#lease;
    }
    const left = await etcd.keepAlive(this.#lease);
    if (left <= 0) {
      this.#lost("expired");
      throw new Error("the rig's lease ran out: joining again");
    }
    return this.#lease;
  }

  /**
   * A full read of the group's records and campaigns (not its edit log, which may be long), and
   * the watch restarted after the first read: what changed after it is delivered again.
   */
  async #resync(): Promise<void> {
    const { etcd } = this.#o;
    const { kvs, revision } = await etcd.range(this.#keys.rigs, { prefix: true });
    const campaigns = await etcd.range(this.#keys.election, { prefix: true });
    this.#view.reset([...kvs, ...campaigns.kvs], revision);
    this.#rigsSeen = revision;
    this.#watch?.abort();
    const watch = new AbortController();
    this.#watch = watch;
    this.#staleBeats = 0;
    // Only the records and campaigns: the rest of the root (the log, snapshot chunks) is not read.
    for (const prefix of [this.#keys.rigs, this.#keys.election]) {
      void this.#o.etcd.watch(prefix, {
        fromRevision: revision + 1,
        onEvents: (events, at) => {
          if (prefix === this.#keys.rigs) this.#rigsSeen = at;
          this.#view.apply(events, at);
        },
        // Changes hidden by a compaction: everything read again, the watches restarted (when the
        // read fails, by the next beat: no watch then).
        onCompacted: () =>
          void this.#resync().catch(() => {
            this.#watch?.abort();
            this.#watch = null;
          }),
        signal: watch.signal,
      });
    }
  }

  /**
   * A watch that has not delivered this rig's own heartbeat for two beats is stuck (its member
   * went silent without closing it): read everything again and restart it.
   */
  #checkWatch(): void {
    if (this.#rigsSeen >= this.#beatRevision) {
      this.#staleBeats = 0;
      return;
    }
    this.#staleBeats += 1;
    if (this.#staleBeats >= 2) {
      this.#o.log("debug", `Rig group ${this.#o.group}: the watch is behind; reading again`);
      void this.#resync().catch(() => {});
    }
  }

  #lost(why: string): void {
    if (this.#lease !== null) {
      this.#o.log("warn", `Rig group ${this.#o.group}: the rig's lease ${why}; joining again`);
    }
    this.#lease = null;
    this.#campaign = null;
  }

  #setProblem(problem: Problem | null): void {
    if (problem?.text === this.#problem?.text) return;
    const { log, group } = this.#o;
    if (problem === null) log("info", `Rig group ${group}: edits are possible again`);
    else log("warn", `Rig group ${group}: ${problem.text}`);
    this.#problem = problem;
  }

  #rigKey(): string {
    return `${this.#keys.rigs}${this.#o.rig}`;
  }

  #record(): string {
    const now = new Date().toISOString();
    const record: RigRecord = {
      name: this.#o.rig,
      ...this.#o.describe(),
      startedAt: this.#startedAt,
      seenAt: now,
      clock: this.#o.clock?.status() ?? null,
    };
    return JSON.stringify(record);
  }
}

/**
 * A follower's watch of its leader's heartbeats (issue 46: a new leader within 1.5 s). etcd 3.4
 * revokes a lease that ran out only in its lessor's loop, every 500 ms, so a dead leader's
 * campaign key can outlive its lease by half a second. A follower that has seen no heartbeat of
 * the leader (a put of its record) for a whole lease, by its own clock since its watch delivered
 * the last one, asks etcd once, linearizably, whether the record moved since; when it did not, it
 * revokes the leader's lease itself: the record and campaign key go at once and the next rig
 * leads. The read keeps a follower whose own loop or watch stalled from acting on stale news: it
 * finds the beats it missed, and counts them as heard. A leader revoked while alive (stalled for
 * longer than its lease) does no harm: it stopped claiming the lead at two thirds of its lease on
 * its own (`group.ts`), its writes are fenced (`fenced(txn)`), and it joins again.
 * @module
 */
import { type Etcd, EtcdError, type Kv } from "./etcd.ts";
import type { Logger } from "../log.ts";
import { pause } from "./_pause.ts";

/** The leading rig's last heartbeat as a follower saw it. */
export interface LeaderBeat {
  rig: string;
  /** Its lease (its campaign key's). */
  lease: string;
  recordKey: string;
  campaignKey: string;
  /** Its record's `mod_revision`: the heartbeat's. */
  modRevision: number;
  /** `now()` when this rig saw that heartbeat. */
  seenAt: number;
}

/** Options of a follower's watch of its leader. */
export interface LeaderWatchOptions {
  etcd: Etcd;
  /** The group's name (for the log). */
  group: string;
  /** The lease's time to live, ms: a leader silent this long is asked after. */
  leaseMs: number;
  /** The leader's last heartbeat as this rig's view has it; null when none leads or this rig does. */
  beat: () => LeaderBeat | null;
  log: Logger;
  /** A monotonic clock in ms. */
  now: () => number;
}

/**
 * What one check found: no other rig leads, its beats come, the read found a beat (or a change)
 * this rig had not seen, or the lease was revoked.
 */
export type LeaderCheck = "none" | "beating" | "moved" | "revoked";

/** A heartbeat (or a change) the read found that the view did not have yet. */
interface Heard {
  rig: string;
  lease: string;
  modRevision: number;
  at: number;
}

/** Revokes a leader silent for a whole lease (`run`); `check()` is one look. */
export class LeaderWatch {
  readonly #o: LeaderWatchOptions;
  #heard: Heard | null = null;

  /** A watch that does nothing until `run()` or `check()`. */
  constructor(options: LeaderWatchOptions) {
    this.#o = options;
  }

  /** Ms until the leader has been silent for a lease (0 or less: now); null when none other leads. */
  dueIn(): number | null {
    const beat = this.#last();
    return beat === null ? null : beat.seenAt + this.#o.leaseMs - this.#o.now();
  }

  /**
   * One look: when the leader has been silent for a lease, one linearizable read (a txn of
   * comparisons) whether its record and campaign key are as last seen; when they are, its lease
   * revoked and the revoke logged with its figures.
   * @throws {EtcdUnavailable} when etcd does not answer (nothing was revoked, or it is unknown)
   */
  async check(): Promise<LeaderCheck> {
    const beat = this.#last();
    if (beat === null) return "none";
    const silence = this.#o.now() - beat.seenAt;
    if (silence < this.#o.leaseMs) return "beating";
    const { etcd } = this.#o;
    const answer = await etcd.txn({
      compare: [
        { key: beat.recordKey, target: "MOD", result: "EQUAL", modRevision: beat.modRevision },
        { key: beat.campaignKey, target: "LEASE", result: "EQUAL", lease: beat.lease },
      ],
      success: [],
      failure: [{ range: { key: beat.recordKey } }],
    });
    if (!answer.succeeded) {
      this.#hear(beat, answer.ranges[0]?.[0]);
      return "moved";
    }
    const revoked = await etcd.revoke(beat.lease).then(() => true, (error) => {
      if (error instanceof EtcdError && error.code === 5) return false; // gone meanwhile
      throw error;
    });
    this.#hear(beat, undefined);
    if (!revoked) return "moved";
    this.#o.log(
      "warn",
      `Rig group ${this.#o.group}: revoked the lease ${beat.lease} of the leader ${beat.rig}, ` +
        `silent for ${Math.round(silence)} ms (its record at revision ${beat.modRevision}): ` +
        `the next rig leads`,
    );
    return "revoked";
  }

  /** Checks whenever the leader's silence reaches a lease, until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const idleMs = this.#o.leaseMs / 3;
    while (!signal.aborted) {
      const due = this.dueIn();
      if (due === null || due > 0) {
        await pause(due ?? idleMs, signal);
        continue;
      }
      try {
        await this.check();
      } catch (error) {
        this.#o.log("debug", `Rig group ${this.#o.group}: ${(error as Error).message}`);
        await pause(idleMs, signal);
      }
    }
  }

  /** The leader's last beat: the view's, or a later one a read found. */
  #last(): LeaderBeat | null {
    const beat = this.#o.beat();
    const heard = this.#heard;
    if (beat === null || heard === null) return beat;
    const same = heard.rig === beat.rig && heard.lease === beat.lease;
    if (!same || heard.modRevision < beat.modRevision) return beat;
    return { ...beat, modRevision: heard.modRevision, seenAt: heard.at };
  }

  /**
   * What the read found counts as a beat heard now: the record's new revision (or, when it is
   * gone or was revoked, the one seen: the watch will tell), asked after again a lease later.
   */
  #hear(beat: LeaderBeat, record: Kv | undefined): void {
    const modRevision = Math.max(record?.modRevision ?? 0, beat.modRevision);
    this.#heard = { rig: beat.rig, lease: beat.lease, modRevision, at: this.#o.now() };
  }
}

/**
 * The show clock wired into a rig group (docs/rigs.md, One show clock): the clock exchange opened
 * on the setting `groupClockPort` with the group, answering only the addresses of the group's
 * records; the leader's show clock the reference, every other rig following the leader of the
 * moment (a failover keeps show time: `ShowClock`); and the group's actions scheduled on it.
 * @module
 */
import type { GroupStatus, RigClock } from "../../protocol/rigs.ts";
import type { ActionRunner } from "../core/action_runner.ts";
import type { ReadModel } from "../core/read_model.ts";
import type { Logger } from "../log.ts";
import { ClockExchange, type ClockExchangeOptions, type ClockPeer } from "./clock/exchange.ts";
import { settingHint, StartupError } from "../startup.ts";
import { ClockFollower } from "./clock/follower.ts";
import { epochMonotonicClock, type LocalClock } from "./clock/local_clock.ts";
import { ShowClock } from "./clock/show_clock.ts";
import { GroupActions } from "./actions.ts";
import type { Etcd } from "./etcd.ts";
import { PlayerShift, type ShowPlayer } from "./player_shift.ts";

/** What the wiring needs. */
export interface ClockWiringOptions {
  etcd: Etcd;
  group: string;
  rig: string;
  /** The group's status now (`RigGroup.status`): its members' records and its leader. */
  status: () => Omit<GroupStatus, "clock">;
  /** The UDP port of the exchange (setting groupClockPort; 0: any free one). */
  port: number;
  /** Setting groupActionLeadMs. */
  leadMs: number;
  /** Where this rig's actions run (its scheduler is set here), and its play states. */
  runner: Pick<ActionRunner, "send" | "scheduler">;
  model?: Pick<ReadModel, "playstate" | "activeProjectId">;
  /** This rig's player: its clock follows the show clock, its frame lag is told (`player_shift.ts`). */
  player?: ShowPlayer;
  log: Logger;
  /** This rig's clock (default `epochMonotonicClock`). */
  local?: LocalClock;
  /** Between two looks at the group for its leader and members, ms (250). */
  refreshMs?: number;
}

/** A rig's show clock in its group: `start` with the group, `stop` before it leaves. */
export class ClockWiring {
  readonly show: ShowClock;
  readonly exchange: ClockExchange;
  readonly follower: ClockFollower;
  readonly actions: GroupActions;
  readonly #o: ClockWiringOptions;
  readonly #shift: PlayerShift | null;
  #members = new Set<string>();
  #following: string | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Opens the exchange's port (throws when it cannot be bound); nothing runs until `start`. */
  constructor(options: ClockWiringOptions) {
    this.#o = options;
    const local = options.local ?? epochMonotonicClock;
    this.show = new ShowClock(local);
    const show = this.show;
    this.exchange = openExchange({
      port: options.port,
      isMember: (address) => this.#members.has(address),
      local,
      answerClock: {
        now: () => show.now(),
        get error() {
          return show.error;
        },
      },
    });
    this.follower = new ClockFollower({ exchange: this.exchange, show, local });
    this.#shift = options.player ? new PlayerShift(show, local, options.player, options.log) : null;
    this.actions = new GroupActions({
      etcd: options.etcd,
      prefix: `/cueport/${options.group}/actions/`,
      rig: options.rig,
      group: options.group,
      show,
      leadMs: options.leadMs,
      send: (action, key, due) => options.runner.send(action, key, due),
      hasQuorum: () => options.status().canEdit,
      log: options.log,
    });
  }

  /** The exchange's bound port (what this rig's record gives as `ports.clock`). */
  get port(): number {
    return this.exchange.addr.port;
  }

  /** Follows the group's leader, answers its members, and schedules the group's actions. */
  start(): void {
    this.refresh();
    this.#timer = setInterval(() => this.refresh(), this.#o.refreshMs ?? 250);
    this.follower.start();
    this.actions.start();
    this.#o.runner.scheduler = this.actions;
  }

  /** Stops scheduling (actions run on this rig alone again), following and answering. */
  async stop(): Promise<void> {
    if (this.#o.runner.scheduler === this.actions) this.#o.runner.scheduler = null;
    clearInterval(this.#timer);
    await this.actions.stop();
    await this.follower.close();
    this.show.close();
    await this.exchange.close();
  }

  /**
   * Reads the group once: its members' addresses (the only ones answered) and the leader to
   * follow (none known, or its record has no clock port yet: the one followed so far is kept).
   */
  refresh(): void {
    this.#shift?.look();
    const status = this.#o.status();
    this.#members = new Set(status.members.flatMap((m) => m.isThisRig ? [] : m.addresses));
    const leader = status.leader;
    if (leader === null || leader === this.#following) return;
    if (leader === this.#o.rig) {
      this.follower.follow(null);
      this.#following = leader;
      this.#o.log("info", `Rig group ${this.#o.group}: this rig's show clock leads`);
      return;
    }
    const peer = peerOf(status.members.find((m) => m.name === leader));
    if (peer === null) return;
    // Keyed by where it listens too: a leader restarted on another address is followed there.
    const key = `${leader}@${peer.hostname}:${peer.port}`;
    if (key === this.#following) return;
    this.follower.follow(peer);
    this.#following = key;
    this.#o.log("info", `Rig group ${this.#o.group}: following ${leader}'s show clock`);
    void this.follower.poll().catch(() => {}); // the first estimate now, not in a second
  }

  /** This rig's clock and actions, for its status and record. */
  status(): RigClock {
    const clock = this.follower.status();
    const last = this.actions.last;
    return {
      role: clock.role,
      offsetMs: round3(clock.offsetMs),
      errorMs: clock.errorMs === null ? null : round3(clock.errorMs),
      frameLagMs: this.#frameLagMs(),
      scheduled: this.actions.scheduled,
      late: this.actions.late,
      lastAction: last && {
        id: last.entry.id,
        name: last.entry.action.name,
        showTime: round3(last.entry.showTime),
        lateMs: round3(last.lateMs),
        outcome: last.outcome,
        clipStarts: this.#clipStarts(last.entry.action.projectId),
      },
    };
  }

  /** How far this rig's output's frames lag its show time (its page's last report), ms. */
  #frameLagMs(): number | null {
    const lag = this.#o.player?.frameLagMs() ?? null;
    return lag === null ? null : round3(lag);
  }

  /** The show time each Clip playing now began at (as its play state's position says). */
  #clipStarts(projectId: string | null): Record<string, number> {
    const model = this.#o.model;
    const id = projectId ?? model?.activeProjectId ?? null;
    const state = id === null ? undefined : model?.playstate(id);
    const now = this.show.now();
    const starts: Record<string, number> = {};
    for (const c of state?.clips ?? []) {
      if (c.state !== "playing" || !(c.speed > 0)) continue;
      const played = c.direction === "forward" ? c.position : c.duration - c.position;
      starts[c.clipID] = round3(now - (played * 1000) / c.speed);
    }
    return starts;
  }
}

/** The exchange, or why its port cannot be bound and what to change. */
function openExchange(options: ClockExchangeOptions): ClockExchange {
  try {
    return ClockExchange.open(options);
  } catch (error) {
    throw new StartupError(
      `The group clock port ${options.port} cannot be bound (${(error as Error).message}): ` +
        `choose another with ${settingHint("groupClockPort")}`,
    );
  }
}

/** Where a member's exchange listens: its first address and its `clock` port; null if unknown. */
function peerOf(
  member: { addresses: string[]; ports: Record<string, number | null> } | undefined,
): ClockPeer | null {
  const port = member?.ports.clock;
  // The exchange listens on IPv4 (0.0.0.0).
  const hostname = member?.addresses.find((a) => !a.includes(":"));
  return port && hostname ? { hostname, port } : null;
}

function round3(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

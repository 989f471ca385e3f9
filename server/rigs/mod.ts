/**
 * Rig groups (docs/rigs.md): several Cueports, each a rig playing the whole
 * show, sharing one etcd. This part joins the group, keeps the rig's record
 * alive under a lease, elects a leader and says how the rig stands; the edit
 * replication and the show clock build on `Etcd`, `RigGroup.campaign` and
 * `fenced`. Without the setting `group` nothing here runs and no etcd is touched.
 * @module
 */
import { type GroupStatus, rigNameFrom } from "../../protocol/rigs.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";
import type { Settings } from "../config.ts";
import type { Logger } from "../log.ts";
import { VERSION } from "../version.ts";
import { GatewayEtcd } from "./etcd_gateway.ts";
import type { Etcd } from "./etcd.ts";
import { RigGroup } from "./group.ts";
import { ClockWiring, type ClockWiringOptions } from "./clock_wiring.ts";

export { type Campaign, campaign, fenced, leaderKey } from "./election.ts";
export * from "./etcd.ts";
export { GatewayEtcd } from "./etcd_gateway.ts";
export { RigGroup, type RigGroupOptions } from "./group.ts";
export { type GroupKeys, groupKeys } from "./keys.ts";
export { ReplicatedEdits, replicateEdits } from "./replicated_edits.ts";
export { type GroupActionEntry, GroupActions, seededChoice } from "./actions.ts";
export { ClockWiring, type ClockWiringOptions } from "./clock_wiring.ts";
export { RigMedia, type RigMediaOptions } from "./media_copies.ts";
export { mediaMount } from "./media_route.ts";

/** The settings of a rig group. */
export type GroupSettings =
  & Pick<Settings, "group" | "groupEndpoints" | "rigName" | "groupLeaseSeconds">
  & Partial<Pick<Settings, "groupClockPort" | "groupActionLeadMs">>;

/** This rig's name: the setting rigName, else the host name made one (`rigNameFrom`). */
export function rigNameOf(settings: Pick<Settings, "rigName">): string {
  if (settings.rigName !== "") return settings.rigName;
  let host = "cueport";
  try {
    host = Deno.hostname();
  } catch {
    // no permission to read it: the default name
  }
  return rigNameFrom(host);
}

/** The status of a Cueport that runs alone: no group, edits always possible. */
export function aloneStatus(settings: Pick<Settings, "rigName">): GroupStatus {
  return {
    group: null,
    rig: rigNameOf(settings),
    members: [],
    leader: null,
    isLeader: false,
    canEdit: true,
    reason: null,
    reasonCode: null,
    endpoint: null,
    endpoints: [],
    clock: null,
  };
}

/** What a rig group is opened with besides its settings. */
export interface OpenRigsOptions {
  /** The service's bound ports (read at each beat). */
  ports: () => Record<string, number | null>;
  log: Logger;
  /** The etcd to use (default the JSON gateway of `groupEndpoints`); tests give their own. */
  etcd?: Etcd;
  /**
   * This rig's actions and play states: given, the show clock is wired in (`clock_wiring.ts`)
   * and every action runs on every rig at one show time.
   */
  actions?: Pick<ClockWiringOptions, "runner" | "model" | "player">;
}

/**
 * The rig group of the settings, not started yet; null when the setting
 * `group` is empty: Cueport runs alone and no etcd is touched.
 */
export function openRigGroup(settings: GroupSettings, options: OpenRigsOptions): RigGroup | null {
  if (settings.group === "") return null;
  const endpoints = settings.groupEndpoints;
  // A request unanswered for a quarter of the lease moves to the next member, in time to renew.
  const timeoutMs = Math.min(1000, settings.groupLeaseSeconds * 250);
  const etcd = options.etcd ?? new GatewayEtcd(endpoints, { timeoutMs });
  const rig = rigNameOf(settings);
  let group: RigGroup | null = null;
  const clock = options.actions && new ClockWiring({
    ...{ etcd, group: settings.group, rig, log: options.log, ...options.actions },
    status: () => group!.status(),
    port: settings.groupClockPort ?? SETTING_DEFAULTS.groupClockPort,
    leadMs: settings.groupActionLeadMs ?? SETTING_DEFAULTS.groupActionLeadMs,
  });
  const ports = () => clock ? { ...options.ports(), clock: clock.port } : options.ports();
  group = new RigGroup({
    etcd,
    group: settings.group,
    rig,
    leaseSeconds: settings.groupLeaseSeconds,
    endpoints,
    log: options.log,
    describe: () => ({ addresses: rigAddresses(), ports: ports(), version: VERSION }),
    ...(clock ? { clock } : {}),
  });
  return group;
}

/** The machine's addresses other rigs may reach it on. */
function rigAddresses(): string[] {
  try {
    return reachableAddresses(Deno.networkInterfaces().map((i) => i.address));
  } catch {
    return [];
  }
}

/** `addresses` without loopback and link-local (IPv4 `169.254.`, IPv6 `fe80:`). */
export function reachableAddresses(addresses: readonly string[]): string[] {
  return addresses.filter((a) =>
    !a.startsWith("127.") && a !== "::1" && !/^fe80:/i.test(a) && !a.startsWith("169.254.")
  );
}

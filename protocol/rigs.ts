/**
 * A rig group (docs/rigs.md): the rigs of one show, each a Cueport, sharing
 * etcd. What a rig registers of itself, and what the status of the group
 * says: `GET /api/v1/group`, the `group` part of `/health`, `cueport group
 * status` and the MCP tool are all this one schema.
 * @module
 */
import { z } from "zod";

/** The characters of a rig's or a group's name: a plain etcd key segment. */
const NAME_CHARS = "A-Za-z0-9_.-";

/**
 * A rig's or a group's name (settings rigName and group): letters, digits,
 * `-_.`, starting with a letter or digit, up to 63; part of every key of the group.
 */
export const RigName = z.string().regex(new RegExp(`^[A-Za-z0-9][${NAME_CHARS}]{0,62}$`));

/** `text` (a host name) made a `RigName`: other characters as `-`; "cueport" when none is left. */
export function rigNameFrom(text: string): string {
  const name = text.replace(new RegExp(`[^${NAME_CHARS}]`, "g"), "-")
    .replace(/^[^A-Za-z0-9]+/, "").slice(0, 63);
  return RigName.safeParse(name).success ? name : "cueport";
}

/** A rig's show clock and its scheduled actions, as that rig measures them (docs/rigs.md). */
export const RigClock = z.object({
  role: z.enum(["leader", "follower", "unsynced"]).describe(
    "Whether the rig's show time is the group's reference (the leader's), follows it, or neither yet",
  ),
  offsetMs: z.number().describe("The rig's show time minus its own clock, ms"),
  errorMs: z.number().nullable().describe(
    "How far the rig's show time may be from the leader's, ms (0 on the leader); null before its first measurement",
  ),
  frameLagMs: z.number().nullable().describe(
    "How far the rig's output's frames are from its show time, the mean of |lag| over the page's last second, ms; null without an output",
  ),
  scheduled: z.number().int().describe("Group actions this rig has scheduled since it started"),
  late: z.number().int().describe(
    "Of them, how many arrived after their show time and ran at once",
  ),
  lastAction: z.object({
    id: z.string(),
    name: z.string().describe("The action's name"),
    showTime: z.number().describe("The show time it was scheduled at, ms"),
    lateMs: z.number().describe("How late it ran on this rig's show clock, ms (0: on time)"),
    outcome: z.string().nullable().describe(
      "What this rig's player answered: its account of what it did, or `Refused: ` and why; null until it answers",
    ),
    clipStarts: z.record(z.string(), z.number()).describe(
      "The show time each Clip playing just after it began at, by Clip id, ms (as the player reports its position)",
    ),
  }).nullable().describe("The last group action this rig ran; null before the first"),
});
/** A rig's show clock. */
export type RigClock = z.infer<typeof RigClock>;

/** What a rig writes under its lease at `/cueport/<group>/rigs/<rig>` (JSON). */
export const RigRecord = z.object({
  name: z.string().describe("The rig's name (setting rigName; default the host name)"),
  addresses: z.array(z.string()).describe("The rig's network addresses (not loopback)"),
  ports: z.record(z.string(), z.number().int().nullable()).describe(
    "The rig's ports, as /api/v1/info lists them",
  ),
  version: z.string().describe("The rig's Cueport version"),
  startedAt: z.string().describe("When the rig joined (ISO 8601, its own clock)"),
  seenAt: z.string().describe("When the rig last wrote this record (ISO 8601, its own clock)"),
  clock: RigClock.nullable().optional().describe(
    "The rig's show clock when it wrote this record (its heartbeat); absent from rigs of versions before it",
  ),
});
/** A rig's record. */
export type RigRecord = z.infer<typeof RigRecord>;

/** One rig of the group, as this rig sees it. */
export const GroupMember = RigRecord.extend({
  isLeader: z.boolean().describe("Whether this rig leads the group now"),
  isThisRig: z.boolean().describe("Whether this is the rig that answers"),
  lastSeenMs: z.number().int().nullable().describe(
    "Milliseconds since the answering rig last saw this rig's record change (its heartbeat, about a second apart); null for itself",
  ),
});
/** One rig of the group. */
export type GroupMember = z.infer<typeof GroupMember>;

/** Why edits are not possible on a rig of a group, as a stable code (`GroupStatus.reasonCode`). */
export const GroupProblem = z.enum(["GROUP_JOINING", "GROUP_NO_QUORUM", "GROUP_RIG_NAME_IN_USE"])
  .describe(
    "GROUP_JOINING: the rig has not joined yet; GROUP_NO_QUORUM: no etcd member answered, the quorum is lost or the lease ran out; GROUP_RIG_NAME_IN_USE: another rig's lease holds this rig's name (give each rig its own rigName, or wait for the lease of the rig's previous run to run out)",
  );
/** Why edits are not possible on a rig of a group. */
export type GroupProblem = z.infer<typeof GroupProblem>;

/** `/health`'s fixed `reason` of each code: no etcd address, no detail (see `GET /api/v1/group`). */
export const GROUP_PROBLEM_TEXT: Record<GroupProblem, string> = {
  GROUP_JOINING: "Edits are not possible: joining the group",
  GROUP_NO_QUORUM: "Edits are not possible: this rig is cut off from the etcd quorum",
  GROUP_RIG_NAME_IN_USE: "Edits are not possible: another rig uses this rig's name in the group",
};

/** How far this rig applied its group's edit log, and the imported file it waits for. */
export const GroupLog = z.strictObject({
  applied: z.number().int().describe("The revision of the last log entry this rig applied"),
  head: z.number().int().describe(
    "The revision of the last log entry this rig has seen (applied or not yet)",
  ),
  waitingFor: z.strictObject({
    of: z.enum(["entry", "snapshot"]).describe(
      "What waits: an entry of the log, or the group's snapshot this rig must take",
    ),
    revision: z.number().int().describe("The log entry that waits, or the snapshot's revision"),
    sha256: z.string().nullable().describe("The file it waits for (SHA-256); null: the player"),
    sinceMs: z.number().int().describe("Milliseconds it has waited"),
  }).nullable().describe(
    "The entry (or snapshot) this rig cannot apply yet (its file not copied, its player away); while it waits for a file the rig refuses edits with GROUP_BEHIND; null when it is not waiting",
  ),
});
/** How far this rig applied its group's edit log. */
export type GroupLog = z.infer<typeof GroupLog>;

/** The status of this rig's group. */
export const GroupStatus = z.strictObject({
  group: z.string().nullable().describe(
    "The group's name (setting group); null: this Cueport runs alone and touches no etcd",
  ),
  rig: z.string().describe("This rig's name"),
  members: z.array(GroupMember).describe(
    "The rigs registered in the group now (a rig whose lease ran out is gone), by name",
  ),
  leader: z.string().nullable().describe(
    "The rig that leads (the oldest campaign key, etcd's election pattern); null: none known",
  ),
  isLeader: z.boolean().describe("Whether this rig leads"),
  canEdit: z.boolean().describe(
    "Whether edits are possible on this rig: its last request to etcd was answered by a quorum. Always true alone",
  ),
  reason: z.string().nullable().describe(
    "Why edits are not possible (no etcd member answers, the quorum is lost, the lease ran out); null when they are",
  ),
  reasonCode: GroupProblem.nullable().describe(
    "`reason` as a stable code; null when edits are possible",
  ),
  endpoint: z.string().nullable().describe("The etcd member this rig talks to now; null alone"),
  endpoints: z.array(z.string()).describe("The etcd members of the setting groupEndpoints"),
  clock: RigClock.nullable().describe("This rig's show clock now; null alone"),
  log: GroupLog.optional().describe("How far this rig applied the group's edit log; absent alone"),
});
/** The status of this rig's group. */
export type GroupStatus = z.infer<typeof GroupStatus>;

/**
 * `/health`'s `group` part: the status without the rigs' addresses and ports
 * (`/health` needs no authentication), its members by name, its `reason` the
 * fixed text of its code (the detail names etcd's members: `GET /api/v1/group` only).
 */
export const GroupHealth = GroupStatus.pick({
  group: true,
  rig: true,
  leader: true,
  isLeader: true,
  canEdit: true,
  reason: true,
  reasonCode: true,
}).extend({
  clock: RigClock.pick({ role: true, offsetMs: true, errorMs: true, frameLagMs: true }).nullable()
    .describe("This rig's show clock now (its actions are not told here); null alone"),
  members: z.array(z.string()).describe("The rigs registered in the group now, by name"),
  log: GroupLog.optional().describe("How far this rig applied the group's edit log; absent alone"),
});
/** `/health`'s `group` part. */
export type GroupHealth = z.infer<typeof GroupHealth>;

/** `/health`'s `group` part of a status. */
export function groupHealthOf(status: GroupStatus): GroupHealth {
  const { group, rig, leader, isLeader, canEdit, reasonCode, clock } = status;
  return {
    clock: clock && {
      role: clock.role,
      offsetMs: clock.offsetMs,
      errorMs: clock.errorMs,
      frameLagMs: clock.frameLagMs,
    },
    group,
    rig,
    leader,
    isLeader,
    canEdit,
    reason: reasonCode === null ? null : GROUP_PROBLEM_TEXT[reasonCode],
    reasonCode,
    members: status.members.map((m) => m.name),
    ...(status.log ? { log: status.log } : {}),
  };
}

/**
 * One entry of a rig group's edit log (`/cueport/<group>/log/<scope>/<n>`,
 * docs/rigs.md): the batch as the asking rig checked it, who asked, and the
 * id its client waits on. Every rig applies it, seeded by its revision.
 */
export const LogEntry = z.object({
  /** `<rig>:<uuid>`: the asking rig answers its client when its own rig has applied this. */
  id: z.string().min(1),
  /** The rig that asked. */
  rig: z.string(),
  /** The Project (resolved by the asking rig: never "the active one"), or null for the library. */
  projectId: z.string().min(1).nullable(),
  edits: z.array(z.object({ name: z.string(), params: z.unknown() })).min(1),
  /**
   * A keyed edit's client key (`client/key`, as under `keys/`): every rig keeps its answer while
   * the key lives, and the snapshots carry it, so a retry with the key is answered as the first.
   */
  key: z.string().min(1).optional(),
});
export type LogEntry = z.infer<typeof LogEntry>;

/**
 * The folder of a rig's data dir that holds its group's files by SHA-256
 * (`<dataDir>/group-media/<sha256>`, `server/rigs/media_store.ts`): each written once under a temp
 * name and renamed to its hash, never changed in place, so the player hard-links one into a
 * Project instead of copying it (`player/edits/file_import.ts`).
 */
export const GROUP_MEDIA_DIR = "group-media";

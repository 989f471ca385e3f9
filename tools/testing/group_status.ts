/**
 * A rig group's status as `GET /api/v1/group` answers it (checked against its schema), for the
 * remote's Group screen: its test and the screenshot tool's picture hand it to the page in place
 * of the service's answer. Two rigs: `main` leads, `backup` follows 0.8 ms off.
 */
import { GroupStatus } from "../../protocol/rigs.ts";

const CLOCK = {
  scheduled: 12,
  late: 0,
  lastAction: null,
};

/** The status as rig `main` answers it; `canEdit` false: cut off from the quorum. */
export function standInGroup(canEdit = true): GroupStatus {
  const record = (name: string, address: string) => ({
    name,
    addresses: [address],
    ports: { http: 17736, ws: 17737 },
    version: "6.0.0",
    startedAt: "2026-11-30T19:02:11.000Z",
    seenAt: "2026-11-30T20:14:05.000Z",
  });
  return GroupStatus.parse({
    group: "show",
    rig: "main",
    members: [
      {
        ...record("backup", "192.168.1.21"),
        clock: { role: "follower", offsetMs: -0.8, errorMs: 0.6, frameLagMs: 4.2, ...CLOCK },
        isLeader: false,
        isThisRig: false,
        lastSeenMs: 420,
      },
      {
        ...record("main", "192.168.1.20"),
        clock: { role: "leader", offsetMs: 0, errorMs: 0, frameLagMs: 3.1, ...CLOCK },
        isLeader: true,
        isThisRig: true,
        lastSeenMs: null,
      },
    ],
    leader: "main",
    isLeader: true,
    canEdit,
    reason: canEdit ? null : "Edits are not possible: this rig is cut off from the etcd quorum",
    reasonCode: canEdit ? null : "GROUP_NO_QUORUM",
    endpoint: "http://192.168.1.20:2379",
    endpoints: ["http://192.168.1.20:2379", "http://192.168.1.21:2379"],
    clock: { role: "leader", offsetMs: 0, errorMs: 0, frameLagMs: 3.1, ...CLOCK },
  });
}

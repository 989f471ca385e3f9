/**
 * `GET /api/v1/group`: how this rig stands in its rig group (docs/rigs.md),
 * from the service's facts (`server/rigs/` keeps it); alone, a status with
 * no group and edits always possible.
 * @module
 */
import { z } from "zod";
import { GroupStatus } from "../../../protocol/rigs.ts";
import { type AnyOperation, defineOperation, given } from "./operation.ts";

/** The rig group's status: members, leader, this rig, whether edits are possible. */
export const groupOperation: AnyOperation = defineOperation({
  name: "group",
  since: "6.0",
  summary:
    "The rig group: its members (each rig's addresses, ports, version, last seen), the leader, this rig, and whether edits are possible here",
  tag: "service",
  kind: "service",
  input: z.strictObject({}),
  output: GroupStatus,
  run: ({ facts }) => given(facts, "service facts").group(),
});

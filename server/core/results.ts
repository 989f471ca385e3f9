/**
 * Shapes of answers that are not views of state: action results, errors,
 * service info. Declared once; the OpenAPI document derives from them.
 * @module
 */
import { z } from "zod";
import { ErrorCode } from "./errors.ts";
import { OutputStats } from "../../protocol/output.ts";
import { DataProblem } from "../../protocol/library.ts";
import { GroupHealth } from "../../protocol/rigs.ts";
import { velocitySchema } from "../../protocol/action_rules.ts";
import { VELOCITY_ACTIONS } from "../../protocol/actions.ts";

/** What `POST /api/v1/action` answers: the normalized request and what the player did. */
export const ActionResultView = z.strictObject({
  ok: z.literal(true),
  action: z.string(),
  projectId: z.string().nullable().describe("The Project it ran against"),
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .describe("Parsed params by name, after coercion and the base shift"),
  velocity: velocitySchema().optional().describe(
    `Present for the actions that take velocity: ${[...VELOCITY_ACTIONS].join(", ")}`,
  ),
  applied: z.boolean().describe("false: the state already was as asked"),
  message: z.string().describe("What was done"),
});

/** The one error body of every transport. */
export const ErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.enum(Object.keys(ErrorCode) as [keyof typeof ErrorCode, ...(keyof typeof ErrorCode)[]]),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** `GET /health`. */
export const HealthView = z.strictObject({
  status: z.enum(["ok", "starting", "degraded"]).describe(
    "ok; starting (the player is not ready yet); degraded (ready, but files of the data dir were found damaged: see problems)",
  ),
  ready: z.boolean().describe("The player is up and the API answers"),
  version: z.string(),
  uptimeSeconds: z.number().int(),
  player: z.strictObject({ name: z.string(), version: z.string() }).nullable(),
  playerRestarts: z.number().int().describe(
    "Times the player was restarted since the service started (after a crash or a hang)",
  ),
  output: OutputStats.nullable().describe(
    "How the output draws, from the player's last heartbeat (about a second old); null when no output runs or the player is down",
  ),
  problems: z.array(DataProblem).describe(
    "Files of the data dir found damaged since the service started (the player's and the service's): which, what is wrong, the copy served instead, where the damaged file is kept",
  ),
  group: GroupHealth.optional().describe(
    "How this rig stands in its rig group (docs/rigs.md; GET /api/v1/group has the members' addresses and ports too); absent when Cueport runs alone",
  ),
});

/** `POST /api/v1/refresh`. */
export const RefreshView = z.strictObject({
  ok: z.literal(true),
  projects: z.number().int().describe("Projects open after the reload"),
  message: z.string(),
});

/**
 * The HTTP routes of the 6.0 API, declared once. The app registers them,
 * `/api/v1/info` lists them and `/api/v1/openapi.json` documents them, all
 * from this table.
 * @module
 */
import { z } from "zod";
import type { AuthService } from "../auth/service.ts";
import { ALL_SCOPES } from "../auth/tokens.ts";
import {
  ActionBody,
  ActionResultView,
  AppStateSchema,
  CameraView,
  ClipDetailView,
  type Core,
  CueportError,
  EffectView,
  HealthView,
  ImportJobView,
  PlayStateView,
  PresetView,
  ProjectListItemView,
  ProjectSummaryView,
  ProjectView,
  RefreshView,
  type RetryKey,
  SongDetailView,
  SongView,
  VisualizerView,
} from "../core/mod.ts";

/** What a handler gets. */
export interface RouteInput {
  core: Core;
  auth: AuthService;
  /** The client's address, from the socket. */
  address: string;
  params: Record<string, string>;
  query: Record<string, string>;
  /** The parsed JSON body (POST routes). */
  body: unknown;
  /** The request itself, for routes that stream their body (`rawBody`). */
  request?: Request;
  /** The client's `Idempotency-Key`, on `idempotent` routes that got one. */
  retry?: RetryKey;
}

/** One route. */
export interface RouteSpec {
  method: "GET" | "POST" | "DELETE";
  /** Hono path syntax: `/api/v1/projects/:projectId`. */
  path: string;
  summary: string;
  tag: string;
  /** Whether a remote client needs a token (localhost is exempt by default). */
  auth: boolean;
  /** Refused to any client not on 127.0.0.1/::1, whatever its token. */
  localOnly?: boolean;
  /** The scope a device token needs; default `view` for GET, `control` otherwise. */
  scope?: "view" | "control" | "edit";
  query?: z.ZodObject;
  body?: z.ZodType;
  /**
   * The handler reads the body itself, as a stream (uploads): the media types
   * it takes, each with its JSON Schema, as the OpenAPI document shows them.
   */
  rawBody?: Record<string, Record<string, unknown>>;
  response: z.ZodType;
  /** Takes an `Idempotency-Key` header: a retry gets the first outcome (docs/api.md). */
  idempotent?: boolean;
  /** Returns the JSON answer. */
  handle(input: RouteInput): unknown | Promise<unknown>;
}

const list = <T extends z.ZodType>(key: string, item: T) =>
  z.strictObject({ [key]: z.array(item) });

const Scope = z.enum(ALL_SCOPES as ["view", "control", "edit"]);

/** `POST /api/v1/pair` body. */
const PairBody = z.object({
  otp: z.string({ error: "must be the 6-digit code" }).regex(/^\d{6}$/, {
    error: "must be the 6-digit code",
  }),
  deviceName: z.string().max(100).optional().describe(
    "A name for the device, shown in the device list",
  ),
  scopes: z.array(Scope).min(1).optional().describe("What the device may do; default all three"),
});

/** `POST /api/v1/approvals/:requestId` body. */
const ApprovalBody = z.object({ approve: z.boolean({ error: "must be true or false" }) });

/** Validates a body against a schema, naming the first bad field. */
function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join(".") || "body";
  throw new CueportError("INVALID_MESSAGE", `Invalid ${field}: ${issue.message}`, { field });
}

const DeviceView = z.strictObject({
  deviceId: z.string(),
  name: z.string(),
  scopes: z.array(Scope),
  pairedAt: z.string(),
  address: z.string(),
  origin: z.enum(["pairing", "approval"]).optional().describe(
    "How it got its token: a one-time code, or the approval of a local client",
  ),
  lastUsedAt: z.string().optional().describe("When its token was last accepted"),
});

/** Static facts `/health` reports. */
export interface HealthFacts {
  version: string;
  startedAt: number;
}

/** Builds the route table. */
export function routeTable(facts: HealthFacts): RouteSpec[] {
  const pid = (i: RouteInput) => i.params.projectId!;
  return [
    {
      method: "GET",
      path: "/health",
      summary: "Service status and whether the player is ready; no authentication",
      tag: "service",
      auth: false,
      response: HealthView,
      handle: ({ core }) => ({
        status: core.isReady ? "ok" : "starting",
        ready: core.isReady,
        version: facts.version,
        uptimeSeconds: Math.round((performance.now() - facts.startedAt) / 1000),
        player: core.playerInfo?.player ?? null,
      }),
    },
    {
      method: "GET",
      path: "/api/v1/projects",
      summary: "Every open Project: id, name, song count, active flag",
      tag: "projects",
      auth: true,
      response: list("projects", ProjectListItemView),
      handle: ({ core }) => ({ projects: core.queries.projects() }),
    },
    {
      method: "GET",
      path: "/api/v1/projects/:projectId",
      summary: "A Project in full: Songs, Clips, files, Effects, Visualizers, Controls, display",
      tag: "projects",
      auth: true,
      response: ProjectView,
      handle: (i) => i.core.queries.project(pid(i)),
    },
    {
      method: "GET",
      path: "/api/v1/projects/:projectId/summary",
      summary: "Names and counts only",
      tag: "projects",
      auth: true,
      response: ProjectSummaryView,
      handle: (i) => i.core.queries.summary(pid(i)),
    },
    {
      method: "GET",
      path: "/api/v1/projects/:projectId/playstate",
      summary: "What is playing, positions, durations, directions",
      tag: "playback",
      auth: true,
      response: PlayStateView,
      handle: (i) => i.core.queries.playstate(pid(i)),
    },
    {
      method: "GET",
      path: "/api/v1/active",
      summary: "The active Project and its play state together",
      tag: "playback",
      auth: true,
      response: z.strictObject({ project: ProjectView, playstate: PlayStateView }),
      handle: ({ core }) => core.queries.active(),
    },
    {
      method: "GET",
      path: "/api/v1/app-state",
      summary: "Full screen, mute, volume, recording, editor",
      tag: "playback",
      auth: true,
      response: AppStateSchema,
      handle: ({ core }) => core.queries.appState(),
    },
    {
      method: "GET",
      path: "/api/v1/projects/:projectId/songs",
      summary: "The Songs of a Project",
      tag: "songs",
      auth: true,
      response: list("songs", SongView),
      handle: (i) => ({ songs: i.core.queries.songs(pid(i)) }),
    },
    {
      method: "GET",
      path: "/api/v1/projects/:projectId/songs/:songId",
      summary: "One Song with its timeline, lyrics and Clips",
      tag: "songs",
      auth: true,
      response: SongDetailView,
      handle: (i) => i.core.queries.song(pid(i), i.params.songId!),
    },
    {
      method: "GET",
      path: "/api/v1/projects/:projectId/clips",
      summary: "Only the Clips named in ids (required, comma-separated), in that order",
      tag: "clips",
      auth: true,
      query: z.object({ ids: z.string().describe("Comma-separated Clip ids") }),
      response: list("clips", ClipDetailView),
      handle: (i) => {
        const ids = (i.query.ids ?? "").split(",").map((s) => s.trim()).filter(Boolean);
        if (ids.length === 0) {
          throw new CueportError(
            "INVALID_MESSAGE",
            "Invalid ids: the query parameter ids is required, e.g. ?ids=a,b",
            {
              field: "ids",
            },
          );
        }
        return { clips: i.core.queries.clips(pid(i), ids) };
      },
    },
    {
      method: "GET",
      path: "/api/v1/projects/:projectId/effects",
      summary: "Effects of a Project",
      tag: "effects",
      auth: true,
      response: list("effects", EffectView),
      handle: (i) => ({ effects: i.core.queries.effects(pid(i)) }),
    },
    {
      method: "GET",
      path: "/api/v1/projects/:projectId/visualizers",
      summary: "Visualizers of a Project",
      tag: "effects",
      auth: true,
      response: list("visualizers", VisualizerView),
      handle: (i) => ({ visualizers: i.core.queries.visualizers(pid(i)) }),
    },
    {
      method: "GET",
      path: "/api/v1/presets",
      summary: "Effect and Visualizer presets",
      tag: "effects",
      auth: true,
      response: list("presets", PresetView),
      handle: ({ core }) => ({ presets: core.queries.presets() }),
    },
    {
      method: "GET",
      path: "/api/v1/presets/:kind/:id",
      summary: "One preset; kind is effect or visualizer",
      tag: "effects",
      auth: true,
      response: PresetView,
      handle: (i) => i.core.queries.preset(i.params.kind!, i.params.id!),
    },
    {
      method: "GET",
      path: "/api/v1/cameras",
      summary: "Cameras with device ids and labels",
      tag: "cameras",
      auth: true,
      response: list("cameras", CameraView),
      handle: ({ core }) => ({ cameras: core.queries.cameras() }),
    },
    {
      method: "GET",
      path: "/api/v1/imports",
      summary:
        "Imports and uploads under way, with bytes so far, oldest first; a finished one leaves the list",
      tag: "edits",
      auth: true,
      response: list("imports", ImportJobView),
      handle: ({ core }) => ({ imports: core.queries.imports() }),
    },
    {
      method: "POST",
      path: "/api/v1/action",
      summary:
        "Run one action of the catalog (see the Action schema for every name and its params)",
      tag: "actions",
      auth: true,
      body: ActionBody,
      response: ActionResultView,
      idempotent: true,
      handle: ({ core, body, retry }) =>
        core.runAction(body as Record<string, unknown>, retry).then((result) => ({
          ok: true,
          ...result,
        })),
    },
    {
      method: "POST",
      path: "/api/v1/pair/code",
      summary: "Issue a one-time pairing code, valid 5 minutes (local clients only)",
      tag: "security",
      auth: true,
      localOnly: true,
      response: z.strictObject({ otp: z.string(), expiresAt: z.string() }),
      handle: ({ auth }) => {
        const { otp, expiresAt } = auth.codes.issue();
        return { otp, expiresAt: new Date(expiresAt).toISOString() };
      },
    },
    {
      method: "POST",
      path: "/api/v1/pair",
      summary: "Exchange a one-time code for a device token (JWT)",
      tag: "security",
      auth: false,
      body: PairBody,
      response: z.strictObject({
        token: z.string(),
        deviceId: z.string(),
        scopes: z.array(Scope),
        expiresAt: z.string(),
      }),
      handle: ({ auth, body, address }) => {
        const b = parseBody(PairBody, body);
        return auth.authenticator.pair(b.otp, address, b.deviceName ?? "", b.scopes);
      },
    },
    {
      method: "GET",
      path: "/api/v1/devices",
      summary: "Paired devices (local clients only)",
      tag: "security",
      auth: true,
      localOnly: true,
      response: list("devices", DeviceView),
      handle: ({ auth }) => ({
        devices: auth.devices.list().map(({ tokenId: _t, ...d }) => d),
      }),
    },
    {
      method: "DELETE",
      path: "/api/v1/devices/:deviceId",
      summary:
        "Revoke a device: its token stops working at once and its sockets close (local clients only)",
      tag: "security",
      auth: true,
      localOnly: true,
      response: z.strictObject({ ok: z.literal(true), deviceId: z.string() }),
      handle: async ({ auth, params }) => {
        const deviceId = params.deviceId!;
        if (!(await auth.devices.revoke(deviceId))) {
          throw new CueportError("NOT_FOUND", `Device "${deviceId}" is not paired`);
        }
        return { ok: true, deviceId };
      },
    },
    {
      method: "POST",
      path: "/api/v1/auth/rotate-key",
      summary: "Rotate the signing key: every device token is revoked at once (local clients only)",
      tag: "security",
      auth: true,
      localOnly: true,
      response: z.strictObject({ ok: z.literal(true), revoked: z.number().int() }),
      handle: async ({ auth }) => {
        const revoked = auth.devices.list().length;
        await auth.rotateKey();
        return { ok: true, revoked };
      },
    },
    {
      method: "GET",
      path: "/api/v1/approvals",
      summary: "Local WebSocket clients waiting for the operator's approval (local clients only)",
      tag: "security",
      auth: true,
      localOnly: true,
      response: list(
        "approvals",
        z.strictObject({
          requestId: z.string(),
          address: z.string(),
          deviceName: z.string(),
          requestedAt: z.string(),
        }),
      ),
      handle: ({ auth }) => ({ approvals: auth.approvals.pending() }),
    },
    {
      method: "POST",
      path: "/api/v1/approvals/:requestId",
      summary: "Approve or deny a waiting client (local clients only)",
      tag: "security",
      auth: true,
      localOnly: true,
      body: ApprovalBody,
      response: z.strictObject({
        ok: z.literal(true),
        requestId: z.string(),
        approved: z.boolean(),
      }),
      handle: ({ auth, params, body }) => {
        const { approve } = parseBody(ApprovalBody, body);
        auth.approvals.decide(params.requestId!, approve);
        return { ok: true, requestId: params.requestId!, approved: approve };
      },
    },
    {
      method: "POST",
      path: "/api/v1/refresh",
      summary: "Reload every Project, preset and camera from disk; clients get a full update",
      tag: "service",
      auth: true,
      response: RefreshView,
      handle: async ({ core }) => {
        await core.reload();
        const count = core.queries.projects().length;
        return { ok: true, projects: count, message: `Reloaded ${count} project(s) from disk` };
      },
    },
  ];
}

/**
 * The 5.0.0 HTTP routes (spec section 9): the 6.0 reads without `/v1` in
 * their paths, the single-Clip route 6.0 dropped, `/api/pair`, and the
 * action and edit routes at their 6.0 paths (5.0.0 had them there). Each is
 * a wire mapping onto an operation of the core's catalog, as in
 * `server/routes/table.ts`; the routes 5.0.0 did not have (summary,
 * app-state, presets, clips by ids, refresh, schema, upload, devices,
 * approvals) are absent, so they are 404 here.
 * @module
 */
import { z } from "zod";
import {
  type AnyOperation,
  checkInput,
  CueportError,
  defineOperation,
  type OperationContext,
  operationNamed,
  ThumbnailInput,
  WaveformInput,
} from "../core/mod.ts";
import { toV6Action, toV6Edit, v5NameOf } from "./v5_actions.ts";
import { route, type RouteSpec } from "../net/route.ts";
import { deprecationNotice, type SuccessorPorts } from "./deprecation.ts";

/** The API version this interface speaks. */
export const V5_API_VERSION = "5.0.0";

/**
 * An operation of the catalog that takes its body in the 5.0.0 form too:
 * the same policy, schemas and answer, its input translated into the 6.0
 * form first (the core and the 6.0 port know only that one).
 */
function inV5Form(
  name: "action" | "edit",
  translate: (input: Record<string, unknown>, ctx: OperationContext) => unknown,
): AnyOperation {
  const operation = operationNamed(name);
  return defineOperation({
    ...operation,
    name: name === "action" ? "v5Action" : "v5Edit",
    parse: (raw) => raw,
    run: (ctx, input) =>
      operation.run(ctx, checkInput(operation, translate(input as Record<string, unknown>, ctx))),
  });
}

/** `POST /api/v1/action` on the 5.0.0 port: the 5.0.0 body (seeks in seconds) or the 6.0 one. */
const V5_ACTION = inV5Form("action", (input, { core }) => toV6Action(input, core));
/** `POST /api/v1/edit` on the 5.0.0 port: the 5.0.0 envelope `{edit: {...}}` or the 6.0 body. */
const V5_EDIT = inV5Form("edit", (input) => toV6Edit(input));

/** The routes without the info route (which lists them). */
function dataRoutes(): RouteSpec[] {
  return [
    route("GET", "/health", "health"),
    route("POST", "/api/pair", "pair"),
    route("GET", "/api/projects", "projects"),
    route("GET", "/api/projects/:projectId", "project"),
    route("GET", "/api/projects/:projectId/playstate", "playstate"),
    route("GET", "/api/active", "active"),
    route("GET", "/api/projects/:projectId/songs", "songs"),
    route("GET", "/api/projects/:projectId/songs/:songId", "song", {
      input: ({ params, query }) => ({
        ...query,
        projectId: params.projectId,
        songID: params.songId,
      }),
    }),
    route("GET", "/api/projects/:projectId/songs/:songId/clips/:clipId", "clips", {
      // Its own words: the operation's are those of the 6.0 `clips?ids=` route.
      summary: "One Clip of the Song, by its id",
      input: ({ params }) => ({ projectId: params.projectId, ids: [params.clipId] }),
      output: (answer, { params }) => {
        const clip = (answer as { clips: Array<{ songID: string | null }> }).clips[0]!;
        if (clip.songID !== params.songId) {
          throw new CueportError(
            "NOT_FOUND",
            `Clip "${params.clipId}" is not in Song "${params.songId}"`,
          );
        }
        return clip;
      },
    }),
    route("GET", "/api/projects/:projectId/effects", "effects"),
    route("GET", "/api/projects/:projectId/visualizers", "visualizers"),
    route("GET", "/api/cameras", "cameras"),
    route("GET", "/thumbnails/:projectId/:fileId.jpg", "thumbnail", {
      query: ThumbnailInput.pick({ size: true, overlay: true, format: true, quality: true }),
    }),
    route("GET", "/waveforms/:projectId/:fileId.png", "waveform", {
      query: WaveformInput.pick({ width: true, height: true }),
    }),
    route("GET", "/camera-thumbnails/:cameraId.jpg", "cameraThumbnail"),
    route("POST", "/api/v1/action", V5_ACTION, {
      // A 5.0.0 client reads the action by its 5.0.0 name.
      output: (answer) => {
        const result = answer as { action: string };
        return { ...result, action: v5NameOf(result.action) };
      },
    }),
    route("POST", "/api/v1/edit", V5_EDIT),
  ];
}

const Endpoint = z.strictObject({
  method: z.string(),
  path: z.string(),
  description: z.string(),
  auth: z.boolean(),
});

/** The answer of `GET /api/info`. */
export const V5InfoView = z.strictObject({
  apiVersion: z.literal(V5_API_VERSION),
  appVersion: z.string(),
  ports: z.strictObject({
    http: z.number().int(),
    ws: z.number().int().nullable().describe("null while the 5.0.0 WebSocket is off"),
  }),
  websocket: z.literal("/").describe("WebSocket path on the ws port"),
  deprecation: z.strictObject({
    deprecated: z.literal(true),
    since: z.string(),
    sunset: z.string(),
    successor: z.strictObject({
      apiVersion: z.literal("6.0"),
      httpPort: z.number().int(),
      wsPort: z.number().int(),
      websocketPath: z.literal("/v1"),
    }),
    docs: z.string(),
  }),
  endpoints: z.array(Endpoint),
});

/** What the 5.0.0 routes report. */
export interface V5RouteOptions {
  version: string;
  /** The 5.0.0 ports, once bound (the WebSocket's null while off). */
  ports: () => { http: number; ws: number | null };
  /** The 6.0 ports, once bound. */
  successor: SuccessorPorts;
}

/** The operations of the 5.0.0 HTTP transport itself: the catalog's action and edit in the 5.0.0 body form. */
export const V5_OWN_OPERATIONS: readonly string[] = ["v5Action", "v5Edit"];

/** The operation of the catalog each of its own stands for (its policy is that one's). */
export const V5_CARRIED_AS: Readonly<Record<string, string>> = {
  v5Action: "action",
  v5Edit: "edit",
};

/** Every 5.0.0 route, `/api/info` first. */
export function v5Routes(options: V5RouteOptions): RouteSpec[] {
  const routes = dataRoutes();
  const info = route("GET", "/api/info", "v5Info", {
    response: V5InfoView,
    describe: () => ({
      apiVersion: V5_API_VERSION,
      appVersion: options.version,
      ports: options.ports(),
      websocket: "/",
      deprecation: deprecationNotice(options.successor),
      endpoints: all.map((r) => ({
        method: r.method,
        path: r.path,
        description: r.summary,
        auth: r.auth,
      })),
    }),
  });
  const all = [info, ...routes];
  return all;
}

/**
 * The refusal of a path the 5.0.0 interface does not have, saying where 6.0
 * has its routes (`server/routes`, on the 6.0 port).
 */
export function v5NotFound(method: string, path: string, httpPort: number): CueportError {
  const where = `the 6.0 interface serves its routes under /api/v1 on port ${httpPort}`;
  const hint = path.startsWith("/api/v1/")
    ? `5.0.0 paths have no /v1 (but /api/v1/action and /api/v1/edit): ${where}`
    : path.startsWith("/api/")
    ? `not in the 5.0.0 interface; ${where} (docs/compat.md)`
    : where;
  return new CueportError("NOT_FOUND", `No route for ${method} ${path}: ${hint}`);
}

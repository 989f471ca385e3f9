/**
 * The HTTP routes of the 6.0 API, each a wire mapping onto an operation of
 * the core's catalog (`route.ts`). The app registers them, `/api/v1/info`
 * lists them and `/api/v1/openapi.json` documents them, all from this table
 * and `edit_routes.ts`.
 * @module
 */
import { z } from "zod";
import { OutputFrameInput, ThumbnailInput, WaveformInput } from "../core/mod.ts";
import { route, type RouteSpec } from "./route.ts";

/** `?ids=a, b,,c` as `["a", "b", "c"]`. */
function commaList(value: string | undefined): string[] {
  return (value ?? "").split(",").map((s) => s.trim()).filter(Boolean);
}

/** The extensions a thumbnail's path may end in, and the format each chooses. */
const THUMBNAIL_EXTENSIONS = [["jpg", "jpeg"], ["jpeg", "jpeg"], ["png", "png"]] as const;

/**
 * `/thumbnails/:projectId/:fileId.jpg`, `.jpeg` and `.png`: the extension chooses the
 * format; a `format` parameter wins over it (clients written when only `.jpg` was served
 * ask for PNG with `.jpg?format=png`).
 */
function thumbnailRoutes(): RouteSpec[] {
  const query = ThumbnailInput.pick({ size: true, overlay: true, format: true, quality: true });
  return THUMBNAIL_EXTENSIONS.map(([extension, format]) =>
    route("GET", `/thumbnails/:projectId/:fileId.${extension}`, "thumbnail", {
      query,
      input: ({ params, query }) => ({ format, ...query, ...params }),
      produces: format === "png" ? ["image/png", "image/jpeg"] : ["image/jpeg", "image/png"],
    })
  );
}

/**
 * `/api/v1/output/frame.jpg`, `.jpeg` and `.png`: the output's picture now (a preview),
 * the format chosen as a thumbnail's is.
 */
function outputFrameRoutes(): RouteSpec[] {
  const query = OutputFrameInput.pick({ size: true, format: true, quality: true });
  return THUMBNAIL_EXTENSIONS.map(([extension, format]) =>
    route("GET", `/api/v1/output/frame.${extension}`, "outputFrame", {
      query,
      input: ({ query }) => ({ format, ...query }),
      produces: format === "png" ? ["image/png", "image/jpeg"] : ["image/jpeg", "image/png"],
    })
  );
}

/** Builds the route table. */
export function routeTable(): RouteSpec[] {
  return [
    route("GET", "/health", "health"),
    route("GET", "/api/v1/projects", "projects", {
      query: z.object({
        all: z.enum(["true", "false"]).optional()
          .describe("true: list the closed and deleted Projects of the library too"),
      }),
    }),
    route("GET", "/api/v1/projects/:projectId", "project"),
    route("GET", "/api/v1/projects/:projectId/summary", "summary"),
    route("GET", "/api/v1/projects/:projectId/playstate", "playstate"),
    route("GET", "/api/v1/active", "active"),
    route("GET", "/api/v1/app-state", "appState"),
    route("GET", "/api/v1/projects/:projectId/songs", "songs"),
    route("GET", "/api/v1/projects/:projectId/songs/:songId", "song", {
      input: ({ params, query }) => ({
        ...query,
        projectId: params.projectId,
        songID: params.songId,
      }),
    }),
    route("GET", "/api/v1/projects/:projectId/clips", "clips", {
      query: z.object({ ids: z.string().describe("Comma-separated Clip ids") }),
      input: ({ params, query }) => ({ projectId: params.projectId, ids: commaList(query.ids) }),
    }),
    route("GET", "/api/v1/projects/:projectId/effects", "effects"),
    route("GET", "/api/v1/projects/:projectId/visualizers", "visualizers"),
    route("GET", "/api/v1/presets", "presets"),
    route("GET", "/api/v1/presets/:kind/:id", "preset", {
      input: ({ params }) => ({ kind: params.kind, presetId: params.id }),
    }),
    route("GET", "/api/v1/presets/:kind/:id/images/:name", "presetImage", {
      input: ({ params }) => ({ kind: params.kind, presetId: params.id, name: params.name }),
    }),
    route("GET", "/api/v1/cameras", "cameras"),
    route("GET", "/api/v1/output/displays", "displays"),
    ...thumbnailRoutes(),
    route("GET", "/waveforms/:projectId/:fileId.png", "waveform", {
      query: WaveformInput.pick({ width: true, height: true }),
    }),
    route("GET", "/camera-thumbnails/:cameraId.jpg", "cameraThumbnail"),
    ...outputFrameRoutes(),
    route("GET", "/api/v1/imports", "imports"),
    route("POST", "/api/v1/action", "action"),
    route("POST", "/api/v1/pair/code", "pairCode"),
    route("POST", "/api/v1/pair", "pair"),
    route("GET", "/api/v1/devices", "devices"),
    route("DELETE", "/api/v1/devices/:deviceId", "revokeDevice"),
    route("POST", "/api/v1/auth/rotate-key", "rotateKey"),
    route("GET", "/api/v1/approvals", "approvals"),
    route("POST", "/api/v1/approvals/:requestId", "decideApproval"),
    route("POST", "/api/v1/refresh", "refresh"),
    route("POST", "/api/v1/timecode", "timecode"),
    route("GET", "/api/v1/group", "group"),
    route("GET", "/api/v1/midi", "midiStatus"),
    route("POST", "/api/v1/midi/learn", "midiLearn"),
    route("POST", "/api/v1/midi/learn/cancel", "midiLearnCancel"),
    route("POST", "/api/v1/midi/approvals/:requestId", "midiDecide"),
  ];
}

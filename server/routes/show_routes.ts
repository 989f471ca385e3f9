/**
 * The show file's routes (docs/projects.md, "The show file"):
 * `GET /api/v1/projects/:projectId/export` streams a Project's zip as it is
 * written, and `POST /api/v1/projects/import` takes one as a raw body, staged
 * within the upload budgets (`maxUploadBytes`, `uploadIdleTimeoutMs`) as
 * `/api/v1/files/upload` stages a file.
 * @module
 */
import type { z } from "zod";
import { operationNamed, type ShowDownload, type ShowUploadInput } from "../core/mod.ts";
import { announcedBody, idleLimited } from "./edit_routes.ts";
import { route, type RouteSpec, type RouteWire } from "./route.ts";
import { SHOW_MEDIA_TYPE } from "../../protocol/show_file.ts";

/** Options of `showRoutes`: the upload budgets. */
export interface ShowRoutesOptions {
  /** Largest show file accepted, bytes (setting maxUploadBytes). */
  maxUploadBytes: number;
  /** An upload that sends no byte for this long ends with 408, ms (setting uploadIdleTimeoutMs). */
  uploadIdleTimeoutMs: number;
}

/** A show file on the wire: streamed, offered under its name. */
export function downloadResponse(answer: ShowDownload): Response {
  return new Response(answer.body, {
    headers: {
      "content-type": answer.contentType,
      "content-disposition": `attachment; filename="${answer.fileName}"`,
      "cache-control": "no-store",
    },
  });
}

/** Reads an uploaded show file's body within the budgets and runs the import on it. */
async function upload(
  request: Request,
  wire: RouteWire,
  run: (input: unknown) => Promise<unknown>,
  options: ShowRoutesOptions,
): Promise<unknown> {
  const maxBytes = options.maxUploadBytes;
  const body = idleLimited(announcedBody(request, maxBytes).body, options.uploadIdleTimeoutMs);
  try {
    const input: ShowUploadInput = {
      chunks: body.body,
      isReplace: wire.query.replace === "true",
      isForced: wire.query.force === "true",
      maxBytes,
    };
    return await run(input);
  } finally {
    body.close();
  }
}

/** The export and import routes. */
export function showRoutes(options: ShowRoutesOptions): RouteSpec[] {
  return [
    route("GET", "/api/v1/projects/:projectId/export", "projectExport"),
    route("POST", "/api/v1/projects/import", "projectImport", {
      query: operationNamed("projectImport").input as z.ZodObject,
      rawBody: {
        [SHOW_MEDIA_TYPE]: {
          type: "string",
          contentMediaType: SHOW_MEDIA_TYPE,
          description: "The show file's bytes (a .cueport.zip)",
        },
      },
      invoke: (request, wire, run) => upload(request, wire, run, options),
    }),
  ];
}

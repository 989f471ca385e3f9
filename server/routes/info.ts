/**
 * `GET /api/v1/info`: versions, ports, and the endpoint map generated from
 * the route table.
 * @module
 */
import { z } from "zod";
import type { RouteSpec } from "./route.ts";

/** The service's ports, as the ready line and `/api/v1/info` report them. */
export interface ServicePorts {
  http: number;
  ws: number;
  osc: number;
  /** The OSCQuery port; absent when off. */
  oscQuery?: number;
  /** The 5.0.0 ports (docs/compat.md); null while off or skipped. */
  legacyHttp?: number | null;
  legacyWs?: number | null;
}

/** The API version this service implements. */
export const API_VERSION = "6.0";

const Endpoint = z.strictObject({
  method: z.string(),
  path: z.string(),
  description: z.string(),
  auth: z.boolean().describe("A remote client needs a token"),
});

/** The info answer: its schema and its builder. */
export const infoView = {
  schema: z.strictObject({
    apiVersion: z.literal(API_VERSION),
    appVersion: z.string(),
    ports: z.strictObject({
      http: z.number().int(),
      ws: z.number().int(),
      osc: z.number().int(),
      oscQuery: z.number().int().optional().describe("The OSCQuery port; absent when off"),
      legacyHttp: z.number().int().nullable().optional()
        .describe("The 5.0.0 HTTP port (docs/compat.md); null while off"),
      legacyWs: z.number().int().nullable().optional()
        .describe("The 5.0.0 WebSocket port; null while off"),
    }),
    websocket: z.string().describe("WebSocket path on the ws port"),
    endpoints: z.array(Endpoint),
  }),
  build(
    routes: readonly RouteSpec[],
    version: string,
    ports: ServicePorts,
  ) {
    return {
      apiVersion: API_VERSION,
      appVersion: version,
      ports,
      websocket: "/v1",
      endpoints: routes.map((r) => ({
        method: r.method,
        path: r.path,
        description: r.summary,
        auth: r.auth,
      })),
    };
  },
};

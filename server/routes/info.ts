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
  /** The network MIDI session's port (docs/midi.md); null while off. */
  midi?: number | null;
}

/** The clients connected now, as `/api/v1/info` counts them (`cueport status` shows them). */
export interface ClientCounts {
  /** WebSocket sessions, on the 6.0 and the 5.0.0 port. */
  websocket: number;
  /** MCP sessions. */
  mcp: number;
  /** OSC senders subscribed to feedback (OSC has no connections: a lease is the nearest). */
  osc: number;
  /** MIDI participants connected (network sessions, local ports). */
  midi?: number;
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
      midi: z.number().int().nullable().optional()
        .describe("The network MIDI (RTP-MIDI) session port (docs/midi.md); null while off"),
    }),
    websocket: z.string().describe("WebSocket path on the ws port"),
    clients: z.strictObject({
      websocket: z.number().int().describe("WebSocket sessions, on the 6.0 and the 5.0.0 port"),
      mcp: z.number().int().describe("MCP sessions"),
      osc: z.number().int().describe("OSC senders subscribed to feedback"),
      midi: z.number().int().optional().describe("MIDI participants connected"),
    }).describe("The clients connected now"),
    endpoints: z.array(Endpoint),
  }),
  build(
    routes: readonly RouteSpec[],
    version: string,
    ports: ServicePorts,
    clients: ClientCounts,
  ) {
    return {
      apiVersion: API_VERSION,
      appVersion: version,
      ports,
      websocket: "/v1",
      clients,
      endpoints: routes.map((r) => ({
        method: r.method,
        path: r.path,
        description: r.summary,
        auth: r.auth,
      })),
    };
  },
};

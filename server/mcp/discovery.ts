/**
 * The discovery document at `GET /.well-known/mcp.json`: one JSON object
 * that serves clients of both community proposals. SEP-2127's server card
 * (`$schema`, reverse-DNS `name`, `version`, `description`, `title`,
 * `remotes` with the Streamable HTTP URL, its headers and protocol versions)
 * and SEP-1649's fields (`protocolVersion`, `capabilities`, `transports`,
 * `authentication`). It holds no secret; the same card is served at
 * `/.well-known/mcp/server-card.json` as `application/mcp-server-card+json`.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";
import { TOOL_NAMES } from "./tools.ts";

/** The server card's schema (SEP-2127 draft, experimental-ext-server-card). */
export const SERVER_CARD_SCHEMA =
  "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json";

/** The discovery document for a request that named `host` (already checked to be this machine). */
export function discoveryDocument(host: string, version: string): Record<string, unknown> {
  const url = `http://${host}/mcp`;
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: "local.app/show-control",
    title: "Show playback control",
    description: "Run a show: Projects, Songs, Clips, playback, Controls A-Z, Effects and presets",
    version,
    remotes: [{
      type: "streamable-http",
      url,
      headers: [{
        name: "Authorization",
        description:
          "Bearer <device token> from pairing (POST /api/v1/pair); not needed on the show machine itself",
        isRequired: false,
        isSecret: true,
      }],
      supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    }],
    // SEP-1649
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: true },
    },
    transports: [{ type: "streamable-http", url }],
    authentication: {
      required: true,
      schemes: ["bearer"],
      description:
        "Clients on the show machine need no token while localhostAuthExempt is on; others pair first",
    },
    _meta: {
      "local.app/tools":
        `${TOOL_NAMES.length} tools named app_*; tools/list shows those the token's scopes allow`,
      "local.app/docs": `http://${host}/api/v1/info`,
    },
  };
}

/** The answer: the card as JSON, or under its own media type at the server-card path. */
export function discoveryResponse(request: Request, version: string): Response {
  const host = request.headers.get("host") ?? `localhost:${SETTING_DEFAULTS.httpPort}`;
  const isCard = new URL(request.url).pathname.endsWith("/server-card.json");
  return new Response(JSON.stringify(discoveryDocument(host, version)), {
    headers: {
      "content-type": isCard ? "application/mcp-server-card+json" : "application/json",
      "cache-control": "public, max-age=3600",
    },
  });
}

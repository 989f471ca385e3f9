/**
 * `/mcp`, its SDK loaded on first use: the MCP SDK is a fifth of the
 * service's modules, and loading it at start delayed the ready line by about
 * 70 ms, and held about 10 MB, for an endpoint a show may never use. The
 * first MCP request waits for it (about 70 ms).
 * @module
 */
import type { McpEndpoint, McpOptions, McpPeer } from "./mod.ts";

/** The MCP endpoint, built from `./mod.ts` when first needed. */
export class LazyMcpEndpoint {
  #options: McpOptions;
  #endpoint: McpEndpoint | null = null;
  #loading: Promise<McpEndpoint> | null = null;
  #isClosed = false;

  /** Keeps the options; nothing is loaded yet. */
  constructor(options: McpOptions) {
    this.#options = options;
  }

  /** How many sessions are open. */
  get sessionCount(): number {
    return this.#endpoint?.sessionCount ?? 0;
  }

  /** Loads the SDK and builds the endpoint (once). */
  load(): Promise<McpEndpoint> {
    return this.#loading ??= import("./mod.ts").then(({ McpEndpoint }) => {
      const endpoint = new McpEndpoint(this.#options);
      if (this.#isClosed) endpoint.close();
      return this.#endpoint = endpoint;
    });
  }

  /** Answers a request to `/mcp`. */
  handle = async (request: Request, peer: McpPeer): Promise<Response> =>
    (await this.load()).handle(request, peer);

  /** The discovery document (`/.well-known/mcp.json`; it names the SDK's protocol versions). */
  discovery = async (request: Request): Promise<Response> => (await this.load()).discovery(request);

  /** Ends every session and the sweep. */
  close(): void {
    this.#isClosed = true;
    this.#endpoint?.close();
  }
}

/** The endpoint's paths on the HTTP port. */
export function mcpMounts(endpoint: LazyMcpEndpoint): Array<{
  methods: readonly string[];
  path: string;
  handle(request: Request, peer: McpPeer): Response | Promise<Response>;
}> {
  return [
    { methods: ["GET", "POST", "DELETE"], path: "/mcp", handle: endpoint.handle },
    { methods: ["GET"], path: "/.well-known/mcp.json", handle: endpoint.discovery },
    { methods: ["GET"], path: "/.well-known/mcp/server-card.json", handle: endpoint.discovery },
  ];
}

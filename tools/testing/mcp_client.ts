/** MCP test clients: the SDK's own client over Streamable HTTP, from 127.0.0.1 or a remote address. */
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** A `tools/call` result as tests read it. */
export interface ToolResult {
  // deno-lint-ignore no-explicit-any
  structuredContent?: any;
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  isError?: boolean;
}

/** A connected client. */
export interface McpTestClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Resolves once the GET stream of server messages is open (its answer arrived). */
  streamOpen: Promise<void>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  /** The error body of a failed call (`isError`), or throws when it did not fail. */
  // deno-lint-ignore no-explicit-any
  callError(name: string, args?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** Connects the SDK client to `base`/mcp. */
export async function connectMcp(
  base: string,
  options: { token?: string; localAddress?: string; headers?: Record<string, string> } = {},
): Promise<McpTestClient> {
  const httpClient = options.localAddress
    ? Deno.createHttpClient({ localAddress: options.localAddress } as Deno.CreateHttpClientOptions)
    : undefined;
  let opened: () => void;
  const streamOpen = new Promise<void>((resolve) => (opened = resolve));
  const fetchVia = async (url: string | URL, init?: RequestInit) => {
    const response = await fetch(url, httpClient ? { ...init, client: httpClient } : init);
    if (init?.method === "GET" && response.ok) opened();
    return response;
  };
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers },
    fetch: fetchVia,
  });
  const client = new Client({ name: "cueport-tests", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    httpClient?.close();
    throw error;
  }
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    await client.callTool({ name, arguments: args }) as ToolResult;
  return {
    client,
    transport,
    streamOpen,
    call,
    async callError(name, args = {}) {
      const result = await call(name, args);
      if (!result.isError) {
        throw new Error(`${name} did not fail: ${JSON.stringify(result.structuredContent)}`);
      }
      return JSON.parse(result.content[0]!.text!).error;
    },
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
      httpClient?.close();
    },
  };
}

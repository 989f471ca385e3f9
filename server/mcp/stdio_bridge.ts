/**
 * `cueport mcp`: an MCP server on stdio for assistants that can only start a
 * command. It forwards every message, both ways, to the running service's
 * `/mcp` (the SDK's stdio server transport on one side, its Streamable HTTP
 * client transport on the other), so the tools, their checks and the session
 * are the service's own; it adds nothing but the credential.
 * @module
 */
import process from "node:process";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Where the bridge forwards to. */
export interface BridgeOptions {
  /** The service's `/mcp` URL. */
  url: URL;
  /** Sent as `Authorization: Bearer`; the operator credential when readable. */
  token: string | null;
  /** Where problems are told (stderr: stdout carries the protocol). */
  log: (message: string) => void;
}

type Message = JSONRPCMessage & { id?: string | number; method?: string; result?: unknown };

/** Runs the bridge until stdin ends; resolves then, after ending the remote session. */
export async function runStdioBridge(options: BridgeOptions): Promise<void> {
  const headers: Record<string, string> = options.token
    ? { authorization: `Bearer ${options.token}` }
    : {};
  const remote = new StreamableHTTPClientTransport(options.url, { requestInit: { headers } });
  const local = new StdioServerTransport();
  let initializeId: string | number | undefined;
  let ended: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));

  local.onmessage = (raw) => {
    const message = raw as Message;
    if (message.method === "initialize") initializeId = message.id;
    remote.send(message).catch((error: Error) => {
      options.log(`cueport mcp: ${error.message}`);
      if (message.id === undefined || message.method === undefined) return;
      // A request must be answered, or the assistant waits forever.
      local.send({
        jsonrpc: "2.0",
        id: message.id,
        error: {
          code: -32000,
          message: `Cannot reach Cueport at ${options.url}: ${error.message}`,
        },
      }).catch(() => {});
    });
  };
  remote.onmessage = (raw) => {
    const message = raw as Message;
    if (initializeId !== undefined && message.id === initializeId && message.result) {
      // Later requests carry the version the service agreed to (MCP-Protocol-Version).
      const version = (message.result as { protocolVersion?: string }).protocolVersion;
      if (version) remote.setProtocolVersion(version);
      initializeId = undefined;
    }
    local.send(message).catch(() => {});
  };
  remote.onerror = (error) => options.log(`cueport mcp: ${error.message}`);
  local.onerror = (error) => options.log(`cueport mcp: ${error.message}`);
  process.stdin.on("end", () => ended());
  process.stdin.on("close", () => ended());

  await remote.start();
  await local.start();
  await done;
  await remote.terminateSession().catch(() => {});
  await remote.close().catch(() => {});
  await local.close().catch(() => {});
}

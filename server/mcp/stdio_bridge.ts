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
  /** The data dir the service was looked for in, to name when none answers. */
  dataDir?: string | null;
}

/** Whether a send failed because nothing listens on the port (no service running there). */
function isUnanswered(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof Deno.errors.ConnectionRefused) return true;
    if (/connection refused|ECONNREFUSED|tcp connect error/i.test(e.message)) return true;
  }
  return false;
}

/** An error with its causes: the fetch's own "fetch failed" says nothing alone. */
function describe(error: Error): string {
  const causes: string[] = [];
  for (let e: unknown = error.cause; e instanceof Error; e = e.cause) causes.push(e.message);
  return [error.message, ...causes].join(": ");
}

/** The one line for a service that does not answer: where it was looked for, how to start it. */
export function unansweredLine(url: URL, dataDir: string | null | undefined): string {
  const where = dataDir ? ` (data dir ${dataDir})` : "";
  const start = dataDir ? `cueport --data-dir ${dataDir}` : "cueport";
  return `No Cueport service answers on port ${url.port}${where}: start it with "${start}", ` +
    "or give the --data-dir or --http-port of the one that runs";
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
  const unanswered = unansweredLine(options.url, options.dataDir);
  // One line per outage, not one per message: the assistant may send many while it lasts.
  let isDown = false;
  const report = (error: Error) => {
    if (!isUnanswered(error)) return options.log(`cueport mcp: ${describe(error)}`);
    if (!isDown) options.log(`cueport mcp: ${unanswered}`);
    isDown = true;
  };

  local.onmessage = (raw) => {
    const message = raw as Message;
    if (message.method === "initialize") initializeId = message.id;
    remote.send(message).catch((error: Error) => {
      report(error);
      if (message.id === undefined || message.method === undefined) return;
      // A request must be answered, or the assistant waits forever.
      local.send({
        jsonrpc: "2.0",
        id: message.id,
        error: {
          code: -32000,
          message: isUnanswered(error)
            ? unanswered
            : `Cannot reach Cueport at ${options.url}: ${describe(error)}`,
        },
      }).catch(() => {});
    });
  };
  remote.onmessage = (raw) => {
    isDown = false;
    const message = raw as Message;
    if (initializeId !== undefined && message.id === initializeId && message.result) {
      // Later requests carry the version the service agreed to (MCP-Protocol-Version).
      const version = (message.result as { protocolVersion?: string }).protocolVersion;
      if (version) remote.setProtocolVersion(version);
      initializeId = undefined;
    }
    local.send(message).catch(() => {});
  };
  remote.onerror = report;
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

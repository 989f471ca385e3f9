import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { TOOL_NAMES } from "../../../server/mcp/mod.ts";
import { startTestService } from "../../_helpers/service.ts";
import { until } from "../../_helpers/until.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

Deno.test("cueport mcp: the SDK's stdio client reaches every tool through the bridge, with the operator credential", async () => {
  // No localhost exemption: the bridge gets in with the operator credential of the data dir.
  const svc = await startTestService({ localhostAuthExempt: false });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-run",
      "--allow-sys=networkInterfaces,hostname,osRelease",
      MAIN,
      "mcp",
      "--data-dir",
      svc.dataDir,
    ],
    stderr: "pipe",
  });
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    const muted = await client.callTool({
      name: "app_system",
      arguments: { action: "MUTE_TOGGLE" },
    });
    assert.equal(muted.isError, undefined);
    assert.equal(
      (await svc.get("/api/v1/app-state", {
        headers: { authorization: `Bearer ${await operatorToken(svc.dataDir)}` },
      })).body.muted,
      true,
    );
    const refused = await client.callTool({ name: "app_get_song", arguments: { songId: "x" } });
    assert.equal(refused.isError, true);
    assert.equal(svc.service.mcp.sessionCount, 1);
  } finally {
    await client.close();
  }
  try {
    // stdin closed: the bridge ends its session before it exits.
    await until("the bridge's session ended", () => svc.service.mcp.sessionCount === 0);
  } finally {
    await svc.stop();
  }
});

async function operatorToken(dataDir: string): Promise<string> {
  return (await Deno.readTextFile(`${dataDir}/auth/operator-token`)).trim();
}

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { TOOL_NAMES } from "../../../server/mcp/mod.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { INITIALIZE } from "./_raw.ts";

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

Deno.test("cueport mcp with no service running: one line naming the port and data dir, and how to start it", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-mcp-none-" });
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close(); // a port nothing listens on
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "mcp", "--data-dir", dataDir, "--http-port", String(port)],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  try {
    const writer = child.stdin.getWriter();
    const request = (id: number, method: string, params: unknown = {}) =>
      writer.write(
        new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"),
      );
    await request(1, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    });
    await request(2, "tools/list");
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (out.split("\n").filter(Boolean).length < 2) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    await writer.close();
    while (!(await reader.read()).done) {
      // the bridge ends when stdin does
    }
    const expected = `No Cueport service answers on port ${port} (data dir ${dataDir}): ` +
      `start it with "cueport --data-dir ${dataDir}", or give the --data-dir or --http-port ` +
      `of the one that runs`;
    const answers = out.trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(answers.map((a) => [a.id, a.error.message]), [[1, expected], [2, expected]]);
    const stderr = await new Response(child.stderr).text();
    assert.equal((await child.status).code, 0);
    // One line for the outage, not one per message, and not the fetch's own words.
    assert.deepEqual(stderr.trim().split("\n"), [
      `cueport mcp: ${expected}`,
    ]);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("cueport mcp: messages piped at once, stdin then closed: each request answered, in the one session", async () => {
  const svc = await startTestService({ localhostAuthExempt: false });
  try {
    const initialize = INITIALIZE;
    const lines = [
      initialize,
      // A second initialize while the first is out: it waits for the first's answer too.
      { ...initialize, id: 5 },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "app_system", arguments: { action: "MUTE_TOGGLE" } },
      },
    ];
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "mcp", "--data-dir", svc.dataDir],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).spawn();
    // Written before any answer is read, and stdin closed: as `printf ... | cueport mcp` does.
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(lines.map((l) => JSON.stringify(l)).join("\n")));
    await writer.write(new TextEncoder().encode("\n"));
    await writer.close();
    const [out, err, status] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.status,
    ]);
    assert.equal(status.code, 0, err);
    assert.equal(err, "", "nothing went wrong");
    const answers = out.trim().split("\n").map((line) => JSON.parse(line))
      .sort((a, b) => a.id - b.id);
    // The second initialize is the service's to refuse, and the bridge passes its words on.
    assert.deepEqual(answers.map((a) => [a.id, a.error?.message ?? "ok"]), [
      [1, "ok"],
      [2, "ok"],
      [3, "ok"],
      [5, "Invalid Request: Server already initialized"],
    ]);
    assert.deepEqual(
      answers[1].result.tools.map((t: { name: string }) => t.name).sort(),
      [...TOOL_NAMES].sort(),
    );
    const token = await operatorToken(svc.dataDir);
    const state = await svc.get("/api/v1/app-state", {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(state.body.muted, true);
    await until("the bridge's session ended", () => svc.service.mcp.sessionCount === 0);
    // A request before any initialize is told to send initialize, not about an HTTP header.
    const early = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "mcp", "--data-dir", svc.dataDir],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = early.stdin.getWriter();
    await w.write(new TextEncoder().encode(JSON.stringify(lines[3]) + "\n"));
    await w.close();
    const [said] = (await new Response(early.stdout).text()).trim().split("\n");
    await early.status;
    await early.stderr.cancel();
    assert.equal(JSON.parse(said!).error.message, "No session yet: send initialize first");
  } finally {
    await svc.stop();
  }
});

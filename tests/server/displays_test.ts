/**
 * The displays over the API, MCP and the CLI, from the real service and player on an Xvfb
 * split into two monitors (`LEFT`, `RIGHT`, 1280x720 each): one answer, the same shape and
 * values on every wire; `OUTPUT_DISPLAY` sets the choice, which a restarted player keeps.
 * The service runs with `output` `none`: the list is the machine's, `current` is null.
 */
import assert from "node:assert/strict";
import { OutputDisplays } from "../../protocol/displays.ts";
import { runCli } from "../../server/cli.ts";
import { addMonitor, startWideXvfb } from "../../tools/testing/displays.ts";
import { connectMcp } from "../../tools/testing/mcp_client.ts";
import { needs } from "../../tools/testing/peers.ts";
import { startTestService } from "../../tools/testing/service.ts";

const LISTED = [
  { index: 0, name: "LEFT", left: 0, top: 0, width: 1280, height: 720, isPrimary: true },
  { index: 1, name: "RIGHT", left: 1280, top: 0, width: 1280, height: 720, isPrimary: false },
].map((d) => ({ ...d, scaleFactor: null }));

Deno.test({
  ...needs("Xvfb", "xrandr"),
  name: "GET /api/v1/output/displays, app_get_displays and cueport displays list two monitors",
  async fn() {
    const xvfb = await startWideXvfb();
    const previous = Deno.env.get("DISPLAY");
    Deno.env.set("DISPLAY", xvfb.display);
    await addMonitor(xvfb.display, "LEFT", 0, "screen");
    await addMonitor(xvfb.display, "RIGHT", 1280);
    let svc = await startTestService();
    try {
      const http = await svc.get("/api/v1/output/displays");
      assert.equal(http.status, 200);
      assert.deepEqual(OutputDisplays.parse(http.body), http.body, "the declared shape, exactly");
      assert.deepEqual(http.body, {
        displays: LISTED,
        source: "xrandr",
        reason: null,
        choice: null,
        current: null,
      });
      const mcp = await connectMcp(svc.base);
      try {
        const tool = await mcp.call("app_get_displays");
        assert.deepEqual(tool.structuredContent, http.body);
      } finally {
        await mcp.close();
      }
      const lines: string[] = [];
      const port = String(svc.service.ports.http);
      assert.equal(await runCli("displays", ["--http-port", port], (l) => lines.push(l)), 0);
      assert.deepEqual(lines, [
        "0  LEFT  1280x720+0+0  primary",
        "1  RIGHT  1280x720+1280+0",
        "The output's display: the primary",
      ]);
      const run = await svc.post("/api/v1/action", {
        name: "OUTPUT_DISPLAY",
        params: ["RIGHT"],
      });
      assert.equal(run.status, 200, JSON.stringify(run.body));
      assert.equal((await svc.get("/api/v1/app-state")).body.outputDisplay, "RIGHT");
      // Kept across a restart (player.json), as full screen is.
      await svc.stop({ keepData: true });
      svc = await startTestService({}, { dataDir: svc.dataDir });
      assert.equal((await svc.get("/api/v1/output/displays")).body.choice, "RIGHT");
    } finally {
      await svc.stop();
      if (previous === undefined) Deno.env.delete("DISPLAY");
      else Deno.env.set("DISPLAY", previous);
      await xvfb.stop();
    }
  },
});

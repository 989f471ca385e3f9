import assert from "node:assert/strict";
import { BrowserSupervisor } from "../../../player/output/supervisor.ts";
import { until } from "../../_helpers/until.ts";

Deno.test({
  name:
    "BrowserSupervisor starts an exiting browser again at once, then backs off, and stops spamming",
  sanitizeOps: false,
  async fn() {
    const lines: string[] = [];
    // `false` stands for a browser that cannot open its window: it exits 1 at once.
    const supervisor = new BrowserSupervisor({
      program: "false",
      mode: "window",
      url: "http://127.0.0.1:9/x/",
      width: 640,
      height: 360,
      log: (_level, message) => lines.push(message),
    });
    supervisor.start();
    try {
      await until("five exits", () => lines.length >= 5, 10_000);
      assert.deepEqual(lines.map((l) => /again in (\d+) ms|every (\d+) s/.exec(l)?.slice(1)), [
        ["0", undefined],
        ["250", undefined],
        ["500", undefined],
        ["1000", undefined],
        [undefined, "30"],
      ]);
      assert.match(lines[4]!, /exited 5 times without showing the page: trying again every 30 s/);
    } finally {
      await supervisor.close();
    }
  },
});

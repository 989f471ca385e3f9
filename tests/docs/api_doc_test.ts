import assert from "node:assert/strict";
import { startTestService } from "../_helpers/service.ts";
import { examples, shapeDiff } from "../_helpers/doc_examples.ts";

Deno.test({
  name: "docs/api.md: every curl example runs against a live service and answers as documented",
  ignore: Deno.build.os === "windows",
  async fn() {
    const doc = await Deno.readTextFile(new URL("../../docs/api.md", import.meta.url));
    const list = examples(doc);
    assert.ok(list.length >= 20, `found ${list.length} examples`);
    const svc = await startTestService({}, { demo: true });
    try {
      for (const { command, expected } of list) {
        const line = command.replaceAll("http://localhost:17736", svc.base);
        const out = await new Deno.Command("sh", {
          args: ["-c", line],
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(out.code, 0, `${command}: ${new TextDecoder().decode(out.stderr)}`);
        const answer = JSON.parse(new TextDecoder().decode(out.stdout));
        if (expected !== undefined) assert.deepEqual(shapeDiff(answer, expected), [], command);
      }
    } finally {
      await svc.stop();
    }
  },
});

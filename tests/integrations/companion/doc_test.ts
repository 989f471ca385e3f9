/** docs/companion.md lists what the built module declares to Companion. */
import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { connectedModule, currentDoc, DOC_PATH } from "../../../integrations/companion/deno/doc.ts";

Deno.test(
  "docs/companion.md holds the module's actions, feedbacks, variables and presets (deno task docs:companion)",
  needs("node"),
  async () => {
    const svc = await startTestService({}, { demo: true });
    const host = await connectedModule(svc);
    try {
      assert.equal(await currentDoc(host), await Deno.readTextFile(DOC_PATH));
      assert.ok(Object.keys(host.actions).length >= 36, "every catalog action and the two edits");
    } finally {
      await host.stop();
      await svc.stop();
    }
  },
);

import assert from "node:assert/strict";
import { startTestService } from "../_helpers/service.ts";
import { examples, shapeDiff } from "../_helpers/doc_examples.ts";
import { needs } from "../_helpers/peers.ts";

/** One `## ` section of a doc, without the sections after it. */
function section(doc: string, title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `no section "${title}"`);
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

Deno.test({
  name:
    "docs/projects.md: the Lifecycle examples run in order against the demo and answer as documented",
  ignore: Deno.build.os === "windows" || needs("curl").ignore,
  async fn() {
    const doc = await Deno.readTextFile(new URL("../../docs/projects.md", import.meta.url));
    const list = examples(section(doc, "Lifecycle"));
    assert.ok(list.length >= 8, `found ${list.length} examples`);
    const svc = await startTestService({}, { demo: true });
    try {
      for (const { command, expected } of list) {
        const line = command.replaceAll("http://localhost:17736", svc.base);
        const out = await new Deno.Command("sh", { args: ["-c", line], stdout: "piped" }).output();
        assert.equal(out.code, 0, command);
        const answer = JSON.parse(new TextDecoder().decode(out.stdout));
        assert.deepEqual(shapeDiff(answer, expected), [], command);
        assert.equal("error" in answer, "error" in (expected as object), command);
        // Ids and states are the point of these examples: they answer the same every time.
        assert.deepEqual(answer.projectId, (expected as { projectId?: string }).projectId, command);
        const states = (a: { projects?: Array<{ projectId: string; state: string }> }) =>
          a.projects?.map((p) => `${p.projectId} ${p.state}`);
        assert.deepEqual(states(answer), states(expected as never), command);
      }
    } finally {
      await svc.stop();
    }
  },
});

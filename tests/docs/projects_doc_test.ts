import assert from "node:assert/strict";
import { startTestService } from "../../tools/testing/service.ts";
import { answerDiff, examples } from "../../tools/testing/doc_examples.ts";
import { needs } from "../../tools/testing/peers.ts";
import { fixtureProject } from "../../tools/testing/fixture.ts";

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
    const problems: string[] = [];
    try {
      for (const { command, expected } of list) {
        const line = command.replaceAll("http://localhost:17736", svc.base);
        const out = await new Deno.Command("sh", { args: ["-c", line], stdout: "piped" }).output();
        assert.equal(out.code, 0, command);
        const answer = JSON.parse(new TextDecoder().decode(out.stdout));
        problems.push(...answerDiff(answer, expected).map((diff) => `${command}\n  ${diff}`));
      }
      assert.deepEqual(problems, []);
    } finally {
      await svc.stop();
    }
  },
});

Deno.test({
  name:
    'docs/projects.md, "Choosing the active Project": its curl example selects a second Project and answers as documented',
  ignore: needs("curl").ignore,
  async fn() {
    const doc = await Deno.readTextFile(new URL("../../docs/projects.md", import.meta.url));
    const list = examples(section(doc, "Choosing the active Project"));
    assert.equal(list.length, 1);
    const tour = { ...fixtureProject(), id: "tour-2027", name: "Tour 2027" };
    const svc = await startTestService({}, { projects: [tour] });
    try {
      // Which one starts active depends on the load order: the example switches from "show".
      await svc.post("/api/v1/action", { name: "PROJECT_SELECT", params: ["show"] });
      for (const { command, expected } of list) {
        const line = command.replaceAll("http://localhost:17736", svc.base);
        const out = await new Deno.Command("sh", { args: ["-c", line], stdout: "piped" }).output();
        assert.equal(out.code, 0, command);
        assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), expected);
      }
      assert.equal((await svc.get("/api/v1/active")).body.project.projectId, "tour-2027");
    } finally {
      await svc.stop();
    }
  },
});

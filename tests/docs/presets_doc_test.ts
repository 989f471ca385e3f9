/**
 * docs/presets.md: its shaders (`Invert.fs`, the two-pass blur) are valid ISF
 * effects, every curl example runs against a live service (in a folder
 * holding `Invert.fs`) and answers as documented, refusals word for word, and
 * the MCP calls answer the same through the SDK's client.
 */
import assert from "node:assert/strict";
import { parseIsf } from "../../player/isf/mod.ts";
import { answerDiff, examples, MintedIds, runExamples } from "../../tools/testing/doc_examples.ts";
import { connectMcp } from "../../tools/testing/mcp_client.ts";
import { needs } from "../../tools/testing/peers.ts";
import { startTestService } from "../../tools/testing/service.ts";

const DOC = new URL("../../docs/presets.md", import.meta.url);

/** The doc's fenced blocks, in order. */
function blocks(doc: string): Array<{ lang: string; text: string }> {
  return [...doc.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, text: m[2]! }));
}

Deno.test({
  name:
    "docs/presets.md: Invert.fs is valid ISF, and every curl and MCP example answers as documented",
  ignore: Deno.build.os === "windows" || needs("curl").ignore,
  async fn() {
    const doc = await Deno.readTextFile(DOC);
    const all = blocks(doc);
    const shader = all.find((b) => b.lang === "glsl")!.text;
    // Every shader of the doc (Invert.fs, the two-pass blur) is a valid effect.
    for (const { text } of all.filter((b) => b.lang === "glsl")) {
      const result = parseIsf(text, "effect");
      assert.ok(result.ok, JSON.stringify(result));
    }
    const list = examples(doc);
    assert.ok(list.length >= 6, `found ${list.length} curl examples`);
    const svc = await startTestService({}, { demo: true });
    const work = await Deno.makeTempDir();
    await Deno.writeTextFile(`${work}/Invert.fs`, shader);
    const ids = new MintedIds();
    const problems: string[] = [];
    const mcp = await connectMcp(svc.base);
    try {
      const live = (command: string) => command.replaceAll("http://localhost:17736", svc.base);
      problems.push(...await runExamples(list, { work, ids, live }));
      const calls = all.flatMap((b, i) => {
        if (b.lang !== "json" || !b.text.includes('"arguments"')) return [];
        return [{ call: JSON.parse(b.text), expected: JSON.parse(all[i + 1]!.text) }];
      });
      assert.equal(calls.length, 2);
      for (const { call, expected } of calls) {
        const result = await mcp.call(call.name, call.arguments);
        const answer = result.structuredContent;
        problems.push(
          ...answerDiff(answer, expected, ids).map((diff) => `${call.name}\n  ${diff}`),
        );
      }
      assert.deepEqual(problems, []);
    } finally {
      await mcp.close();
      await svc.stop();
      await Deno.remove(work, { recursive: true });
    }
  },
});

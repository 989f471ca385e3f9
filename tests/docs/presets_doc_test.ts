/**
 * docs/presets.md: its shaders (`Invert.fs`, the two-pass blur) are valid ISF
 * effects, every curl example runs against a live service (in a folder
 * holding `Invert.fs`) and answers as documented, refusals word for word, and
 * the MCP calls answer the same through the SDK's client.
 */
import assert from "node:assert/strict";
import { parseIsf } from "../../player/isf/mod.ts";
import { examples, shapeDiff } from "../_helpers/doc_examples.ts";
import { connectMcp } from "../_helpers/mcp_client.ts";
import { needs } from "../_helpers/peers.ts";
import { startTestService } from "../_helpers/service.ts";

const DOC = new URL("../../docs/presets.md", import.meta.url);

/** The doc's fenced blocks, in order. */
function blocks(doc: string): Array<{ lang: string; text: string }> {
  return [...doc.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, text: m[2]! }));
}

/** Ids the doc shows for what it created, mapped to the ones this run created. */
class Ids {
  #map = new Map<string, string>();
  replace(text: string): string {
    for (const [from, to] of this.#map) text = text.replaceAll(from, to);
    return text;
  }
  learn(expected: unknown, actual: unknown): void {
    const created = (answer: unknown) =>
      ((answer as { edits?: Array<{ created?: Record<string, string> }> })?.edits ?? [])
        .flatMap((e) => Object.values(e.created ?? {}));
    const actualIds = created(actual);
    created(expected).forEach((id, i) => this.#map.set(id, actualIds[i]!));
  }
}

/** Refusals and validation results must be the documented ones exactly; the rest by shape. */
function assertAnswer(answer: unknown, expected: unknown, what: string): void {
  assert.deepEqual(shapeDiff(answer, expected), [], what);
  const error = (expected as { error?: unknown }).error;
  assert.equal("error" in (answer as object), error !== undefined, what);
  if (error !== undefined) assert.deepEqual((answer as { error: unknown }).error, error, what);
  const result = (expected as { edits?: Array<{ result?: unknown }> }).edits?.[0]?.result;
  if (result !== undefined) {
    assert.deepEqual((answer as { edits: Array<{ result?: unknown }> }).edits[0]?.result, result);
  }
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
    const ids = new Ids();
    const mcp = await connectMcp(svc.base);
    try {
      for (const { command, expected } of list) {
        const line = ids.replace(command.replaceAll("http://localhost:17736", svc.base));
        const out = await new Deno.Command("sh", { args: ["-c", line], cwd: work, stdout: "piped" })
          .output();
        assert.equal(out.code, 0, command);
        const answer = JSON.parse(new TextDecoder().decode(out.stdout));
        if (expected === undefined) continue;
        assertAnswer(answer, expected, `${command}\n${JSON.stringify(answer)}`);
        ids.learn(expected, answer);
      }
      const calls = all.flatMap((b, i) => {
        if (b.lang !== "json" || !b.text.includes('"arguments"')) return [];
        return [{ call: JSON.parse(b.text), expected: JSON.parse(all[i + 1]!.text) }];
      });
      assert.equal(calls.length, 2);
      for (const { call, expected } of calls) {
        const result = await mcp.call(call.name, call.arguments);
        const answer = result.structuredContent;
        assertAnswer(answer, expected, `${call.name}\n${JSON.stringify(result)}`);
        if (call.name === "app_validate_preset") assert.deepEqual(answer, expected);
      }
    } finally {
      await mcp.close();
      await svc.stop();
      await Deno.remove(work, { recursive: true });
    }
  },
});

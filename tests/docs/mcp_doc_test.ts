import assert from "node:assert/strict";
import { answerDiff } from "../../tools/testing/doc_examples.ts";
import { startTestService } from "../../tools/testing/service.ts";

const doc = await Deno.readTextFile(new URL("../../docs/mcp.md", import.meta.url));

/** The worked session: each `json request` block and the `json answer` block after it. */
function session(): Array<{ request: Record<string, unknown>; answer: unknown }> {
  const blocks = [...doc.matchAll(/```json (request|answer)\n([\s\S]*?)```/g)];
  const steps = [];
  for (let i = 0; i < blocks.length; i += 2) {
    assert.equal(blocks[i]![1], "request");
    assert.equal(blocks[i + 1]![1], "answer");
    steps.push({ request: JSON.parse(blocks[i]![2]!), answer: JSON.parse(blocks[i + 1]![2]!) });
  }
  return steps;
}

Deno.test("docs/mcp.md: the worked session answers as documented, and so does the discovery document", async () => {
  const steps = session();
  assert.equal(steps.length, 4);
  const svc = await startTestService({}, { demo: true });
  try {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const post = (body: unknown) =>
      fetch(`${svc.base}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });
    for (const [i, { request, answer }] of steps.entries()) {
      const res = await post(request);
      assert.equal(res.status, 200, JSON.stringify(request));
      const body = await res.json();
      assert.deepEqual(answerDiff(body, answer), [], JSON.stringify(request));
      assert.equal(
        "isError" in body.result,
        "isError" in (answer as { result: object }).result,
        JSON.stringify(request),
      );
      if (i === 0) {
        headers["mcp-session-id"] = res.headers.get("mcp-session-id")!;
        headers["mcp-protocol-version"] = "2025-06-18";
        const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
        assert.equal(initialized.status, 202);
      }
    }
    const end = await fetch(`${svc.base}/mcp`, { method: "DELETE", headers });
    assert.equal(end.status, 200);
    assert.equal((await post({ jsonrpc: "2.0", id: 9, method: "tools/list" })).status, 404);

    // The doc's addresses are the default port's; the test service has its own.
    const discovery = /```json\n(\{\n {2}"\$schema"[\s\S]*?)```/.exec(doc)![1]!;
    const documented = JSON.parse(discovery.replaceAll("http://localhost:17736", svc.base));
    const live = (await svc.get("/.well-known/mcp.json")).body;
    assert.deepEqual(answerDiff(live, documented), []);
  } finally {
    await svc.stop();
  }
});

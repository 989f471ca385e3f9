import assert from "node:assert/strict";
import { startTestService } from "../../tools/testing/service.ts";
import { answerDiff, examples } from "../../tools/testing/doc_examples.ts";
import { ErrorCode } from "../../server/core/errors.ts";
import { needs } from "../../tools/testing/peers.ts";

Deno.test({
  name: "docs/api.md: every curl example runs against a live service and answers as documented",
  ignore: Deno.build.os === "windows" || needs("curl").ignore,
  async fn() {
    const doc = await Deno.readTextFile(new URL("../../docs/api.md", import.meta.url));
    const list = examples(doc);
    assert.ok(list.length >= 20, `found ${list.length} examples`);
    const svc = await startTestService({}, { demo: true });
    const problems: string[] = [];
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
        if (expected === undefined) continue;
        problems.push(...answerDiff(answer, expected).map((diff) => `${command}\n  ${diff}`));
      }
      assert.deepEqual(problems, []);
    } finally {
      await svc.stop();
    }
  },
});

/** The rows of the error table under "## Errors": each code with the status it is listed under. */
function errorTable(doc: string): Map<string, number> {
  const section = doc.slice(doc.indexOf("\n## Errors\n"));
  const lines = section.slice(section.indexOf("\n| Status") + 1).split("\n");
  const table = lines.slice(2, lines.findIndex((line) => !line.startsWith("|")));
  const rows = new Map<string, number>();
  for (const line of table) {
    const [status, codes] = line.split("|").slice(1, 3).map((cell) => cell.trim());
    for (const [, code] of codes!.matchAll(/`([A-Z_]+)`/g)) rows.set(code!, Number(status));
  }
  return rows;
}

/** Codes answered over HTTP with another status than their own (`ErrorCode`), and why. */
const OTHER_STATUS: Record<string, number> = {
  // A plain HTTP request on the WebSocket port's /v1 (server/socket/mod.ts).
  CONNECTION_FAILED: 426,
};

Deno.test("docs/api.md: the error table lists every error code with the status it is answered with", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/api.md", import.meta.url));
  const rows = errorTable(doc);
  const listed = Object.fromEntries(rows);
  const expected = Object.fromEntries(
    Object.entries(ErrorCode).map(([code, status]) => [code, OTHER_STATUS[code] ?? status]),
  );
  assert.deepEqual(listed, expected);
  // The table is in the order of its statuses.
  const statuses = [...rows.values()];
  assert.deepEqual(statuses, [...statuses].sort((a, b) => a - b));
  // The other statuses are what the service answers.
  const svc = await startTestService();
  try {
    const plain = await fetch(`http://127.0.0.1:${svc.service.ports.ws}/v1`);
    assert.equal(plain.status, OTHER_STATUS.CONNECTION_FAILED);
    assert.equal((await plain.json()).error.code, "CONNECTION_FAILED");
  } finally {
    await svc.stop();
  }
});

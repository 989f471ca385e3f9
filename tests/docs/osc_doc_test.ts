import assert from "node:assert/strict";
import { startTestService } from "../../tools/testing/service.ts";
import { until } from "../../tools/testing/until.ts";
import { OscDump } from "../server/osc/_peer.ts";
import { withTables } from "../../tools/osc_doc.ts";
import { needs } from "../../tools/testing/peers.ts";

const DOC = new URL("../../docs/osc.md", import.meta.url);

Deno.test("docs/osc.md: the address table is the one the OSC port serves (deno task docs:osc)", async () => {
  const doc = await Deno.readTextFile(DOC);
  const expected = withTables(doc);
  // The document is formatted by deno fmt after generation: compare the rows only.
  const rows = (text: string) =>
    text.split("\n").filter((l) => l.startsWith("| `/"))
      .map((l) => l.replace(/\s+/g, " "));
  assert.deepEqual(rows(doc), rows(expected));
});

/** Splits a shell line into words (single quotes kept together), without a trailing comment. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.replace(/\s+#.*$/, "").matchAll(/'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2]!);
  return out;
}

Deno.test(
  "docs/osc.md: the oscsend examples give what the document shows in oscdump",
  needs("oscsend"),
  async () => {
    const doc = await Deno.readTextFile(DOC);
    const block = doc.slice(
      doc.indexOf("```sh\n") + 6,
      doc.indexOf("```", doc.indexOf("```sh\n") + 6),
    );
    const svc = await startTestService({}, { demo: true });
    const dump = await OscDump.start();
    try {
      for (const line of block.split("\n")) {
        if (line.startsWith("oscsend ")) {
          const [, , , ...rest] = words(line);
          const args = rest.map((w) => w === "reply=9000" ? `reply=${dump.port}` : w);
          const out = await new Deno.Command("oscsend", {
            args: ["127.0.0.1", String(svc.service.ports.osc), ...args],
          }).output();
          assert.ok(out.success, line);
        } else if (line.startsWith("# -> ")) {
          const expected = line.slice(5);
          await until(
            `oscdump shows ${expected}`,
            () => dump.lines().some((l) => l.startsWith(expected)),
            10_000,
          );
        }
      }
      const playstate = (await svc.get("/api/v1/projects/demo/playstate")).body;
      assert.equal(playstate.controls.A, 0.75, "/control/{A,C} set A too");
    } finally {
      await dump.stop();
      await svc.stop();
    }
  },
);

import assert from "node:assert/strict";
import { type Part, PARTS, runParts, selectParts, summaryLine } from "../../bench/main.ts";

const part = (
  file: string,
  ready?: () => Promise<string | null>,
): Part => (ready ? { file, flags: [], ready } : { file, flags: [] });

Deno.test("runParts() runs every part in turn: a part that cannot run is one skipped row, a failed part does not stop the rest", async () => {
  const ran: string[] = [];
  const lines: string[] = [];
  const parts = [
    part("a_bench.ts"),
    part("companion_bench.ts", () => Promise.resolve("node not found")),
    part("b_bench.ts"),
    part("c_bench.ts", () => Promise.reject(new Error("npm ci failed"))),
    part("d_bench.ts", () => Promise.resolve(null)),
  ];
  const outcomes = await runParts(parts, (p) => {
    ran.push(p.file);
    return Promise.resolve(p.file === "b_bench.ts" ? 1 : 0);
  }, (l) => lines.push(l));
  assert.deepEqual(ran, ["a_bench.ts", "b_bench.ts", "d_bench.ts"]);
  assert.deepEqual(lines, [
    "\ncompanion_bench.ts\n  skipped: node not found",
    "\nc_bench.ts\n  skipped: npm ci failed",
  ]);
  assert.deepEqual(outcomes.map((o) => o.result), ["ok", "skipped", "failed", "skipped", "ok"]);
  assert.equal(
    summaryLine(outcomes),
    "bench: 2 parts ran, 2 skipped, 1 failed: b_bench.ts (exit 1)",
  );
  assert.equal(
    summaryLine(outcomes.filter((o) => o.result !== "failed")),
    "bench: 2 parts ran, 2 skipped, 0 failed",
  );
});

Deno.test("the bench's parts are its fourteen scripts, each there; a name selects the parts it starts", async () => {
  assert.equal(PARTS.length, 14);
  for (const p of PARTS) await Deno.stat(new URL(`../../bench/${p.file}`, import.meta.url));
  assert.deepEqual(selectParts([]).map((p) => p.file), PARTS.map((p) => p.file));
  assert.deepEqual(selectParts(["http", "isf"]).map((p) => p.file), [
    "http_bench.ts",
    "isf_bench.ts",
  ]);
  const deno = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.match(deno.tasks.bench, / bench\/main\.ts$/);
});

/**
 * The README's table of peers is `tools/peers.ts` in words: each peer in it once, with its
 * commands and Debian package, and nothing else.
 */
import assert from "node:assert/strict";
import { PEERS } from "../../tools/peers.ts";

const README = Deno.readTextFileSync(new URL("../../README.md", import.meta.url));

/** The rows of the README's table of peers: the first cell of each, as written. */
function peerRows(): string[] {
  const start = README.indexOf("| Program (Debian package)");
  assert.ok(start >= 0, "the README has a table of peers");
  const rows = README.slice(start).split("\n").slice(2);
  return rows.slice(0, rows.findIndex((r) => !r.startsWith("|"))).map((r) =>
    r.split("|")[1]!.trim()
  );
}

Deno.test("the README's table of peers lists every peer of tools/peers.ts, with its package", () => {
  const rows = peerRows();
  assert.equal(rows.length, PEERS.length, rows.join("; "));
  for (const [i, p] of PEERS.entries()) {
    // The peer's own command first (the README may name a companion program after it).
    assert.ok(
      rows[i]!.startsWith(`\`${p.name}\``) && rows[i]!.endsWith(`(\`${p.debian}\`)`),
      `row ${i + 1} is "${rows[i]}", not \`${p.name}\` (\`${p.debian}\`)`,
    );
  }
});

Deno.test("the HTTP benches' load generator is a peer: wrk, from Debian's wrk", () => {
  const wrk = PEERS.find((p) => p.name === "wrk");
  assert.equal(wrk?.debian, "wrk");
  assert.match(wrk!.why, /bench/);
});

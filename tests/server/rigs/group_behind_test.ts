/**
 * `behindRefusal` (server/rigs/replicated_edits.ts): the GROUP_BEHIND a rig answers while it waits
 * names what it waits for, an entry of the log and its imported file, or the group's snapshot (its
 * revision) and the file that snapshot needs; none while it waits for nothing or for its player.
 */
import assert from "node:assert/strict";
import { behindRefusal } from "../../../server/rigs/replicated_edits.ts";

const SHA = "a".repeat(64);

Deno.test("behindRefusal: an entry waiting for its imported file is named as an entry", () => {
  const refusal = behindRefusal({
    applied: 10,
    head: 12,
    waitingFor: { of: "entry", revision: 11, sha256: SHA, sinceMs: 5 },
  });
  assert.equal(refusal?.code, "GROUP_BEHIND");
  assert.match(refusal!.message, /applied 10 of 12\): entry 11 waits for imported file a{64}/);
});

Deno.test("behindRefusal: a snapshot waiting for a file names the snapshot's revision, not an entry", () => {
  const refusal = behindRefusal({
    applied: 0,
    head: 40,
    waitingFor: { of: "snapshot", revision: 40, sha256: SHA, sinceMs: 5 },
  });
  assert.equal(refusal?.code, "GROUP_BEHIND");
  assert.doesNotMatch(refusal!.message, /entry/);
  assert.match(
    refusal!.message,
    /the group's snapshot of revision 40 waits for file a{64}, which no live rig gave it yet/,
  );
  assert.deepEqual(refusal!.details, { of: "snapshot", revision: 40, sha256: SHA, sinceMs: 5 });
});

Deno.test("behindRefusal: none while nothing waits or only the player does", () => {
  assert.equal(behindRefusal({ applied: 3, head: 3, waitingFor: null }), null);
  const player = {
    applied: 3,
    head: 4,
    waitingFor: { of: "entry" as const, revision: 4, sha256: null, sinceMs: 1 },
  };
  assert.equal(behindRefusal(player), null);
});

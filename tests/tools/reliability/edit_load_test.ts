import assert from "node:assert/strict";
import { EditLoad } from "../../../tools/reliability/_edit_load.ts";
import type { ServiceRun } from "../../../tools/reliability/_harness.ts";
import { Tally } from "../../../tools/reliability/_tally.ts";

Deno.test("EditLoad.audit() finds the edits answered with an error, or never answered, that were applied", async () => {
  // limit 0: no client sends, so no service is needed; the outcomes are set as a run would.
  const load = new EditLoad({} as ServiceRun, new Tally(), { clients: 1, prefix: "e", limit: 0 });
  await load.finished();
  load.acked.set("song-1", "e 1");
  load.refused.set("e 2", "500 SERVER_ERROR");
  load.refused.set("e 3", "400 INVALID_MESSAGE");
  load.unsettled.set("e 4", "504 TIMEOUT");
  const audit = load.audit([
    { id: "song-1", title: "e 1" },
    { id: "song-2", title: "e 2" },
    { id: "song-4", title: "e 4" },
    { id: "song-5", title: "e 4" },
  ]);
  assert.deepEqual(audit.missing, []);
  assert.deepEqual(audit.refusedApplied, ["e 2"]);
  assert.deepEqual(audit.unsettledApplied, ["e 4"]);
  assert.equal(audit.duplicates, 1);
});

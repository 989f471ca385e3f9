/**
 * `action.run`'s `at` (protocol/methods.ts, player/rpc_params.ts): a show time past a Date's
 * range (8.64e15 ms either side of 1970, where `toISOString` throws inside the action) is refused
 * at the door, by the schema and by the player's plain check alike; the range's edges are taken.
 */
import assert from "node:assert/strict";
import { ActionRunParams, MAX_DATE_MS } from "../../protocol/methods.ts";
import { parseActionRun } from "../../player/rpc_params.ts";

const base = { name: "SET_CONTROL", params: { controlID: "A", value: 0.5 }, projectId: null };

Deno.test("action.run refuses an `at` no Date can hold, and takes the range's edges", () => {
  for (const at of [MAX_DATE_MS + 1, -MAX_DATE_MS - 1, 1e300, Infinity, NaN, "5"]) {
    assert.equal(ActionRunParams.safeParse({ ...base, at }).success, false, String(at));
    assert.throws(() => parseActionRun({ ...base, at }), /at/, String(at));
  }
  for (const at of [MAX_DATE_MS, -MAX_DATE_MS, 0, 1_764_479_000_000.5]) {
    assert.equal(ActionRunParams.safeParse({ ...base, at }).data?.at, at);
    assert.equal(parseActionRun({ ...base, at }).at, at);
    new Date(at).toISOString(); // what the action does with it
  }
});

import assert from "node:assert/strict";
import { ACTIONS } from "../../../protocol/actions.ts";
import { operationsOfKind } from "../../../server/core/mod.ts";
import { ADDRESSES, pathOf, readableSegments } from "../../../server/osc/addresses.ts";
import { matchAddress } from "../../../server/osc/match.ts";
import { shortestFloat, splitOptions } from "../../../server/osc/coerce.ts";

const NO_IDS = { clipIds: () => ["c1", "c2"], songIds: () => ["s1"] };

Deno.test("ADDRESSES: every action has a readable address and /action/<NAME>; every query /get/<name>", () => {
  for (const spec of ACTIONS) {
    const rows = ADDRESSES.filter((a) => a.action === spec);
    assert.ok(rows.some((a) => !a.path.startsWith("/action/")), `${spec.name} readable`);
    assert.ok(rows.some((a) => a.path === `/action/${spec.name}`), `${spec.name} by name`);
  }
  for (const name of operationsOfKind("query").keys()) {
    assert.ok(ADDRESSES.some((a) => a.path === `/get/${name}`), name);
  }
  const paths = ADDRESSES.map((a) => a.path);
  assert.equal(new Set(paths).size, paths.length, "paths are unique");
});

Deno.test("readableSegments() follows one rule: noun, id, qualifiers, verbs", () => {
  const path = (name: string) =>
    readableSegments(ACTIONS.find((a) => a.name === name)!).map(pathOf);
  assert.deepEqual(path("PLAY_IN"), ["/play"]);
  assert.deepEqual(path("TRIGGER_CLIP_IN"), ["/clip/{clipID}/trigger"]);
  assert.deepEqual(path("PLAY_CLIP_IN"), ["/clip/{clipID}/play", "/clip/play"]);
  assert.deepEqual(path("PLAY_CLIP_BY_INDEX_IN"), ["/clip/index/{index}/play"]);
  assert.deepEqual(path("NEXT_SONG_IN"), ["/song/next"]);
  assert.deepEqual(path("SONG_SELECT_IN"), ["/song/select"]);
  assert.deepEqual(path("SET_CONTROL"), ["/control/{controlID}"]);
  assert.deepEqual(path("SET_PARAM"), ["/param/{targetID}"]);
  assert.deepEqual(path("OUTPUT_LEVEL_IN"), ["/output/level"]);
  assert.deepEqual(path("RECORD_TOGGLE"), ["/record/toggle"]);
  assert.deepEqual(path("STOP_ALL_CLIPS_IN"), ["/clip/all/stop"]);
});

Deno.test("matchAddress() prefers fixed words, reads ids and Targets, expands patterns", () => {
  const one = (address: string) => {
    const [m] = matchAddress(address, NO_IDS);
    return [m!.entry.path, Object.fromEntries(m!.fromPath)];
  };
  assert.deepEqual(one("/clip/all/stop"), ["/clip/all/stop", {}]);
  assert.deepEqual(one("/clip/c9/stop"), ["/clip/{clipID}/stop", { clipID: "c9" }]);
  assert.deepEqual(one("/param/clip:c1/opacity"), ["/param/{targetID}", {
    targetID: "clip:c1/opacity",
  }]);
  assert.deepEqual(
    matchAddress("/clip/*/stop", NO_IDS).map((m) => m.fromPath.get("clipID")),
    ["c1", "c2"],
  );
  assert.equal(matchAddress("/control/*", NO_IDS).length, 26);
  assert.deepEqual(
    matchAddress("/control/[!A-X]", NO_IDS).map((m) => m.fromPath.get("controlID")),
    ["Y", "Z"],
  );
  assert.throws(() => matchAddress("/clip/index/*/play", NO_IDS), /takes no pattern/);
  assert.throws(() => matchAddress("/pla?", NO_IDS), /No OSC address/);
});

Deno.test("matchAddress() works out a Control pattern once (a desk streams /control/*), a Clip or Song pattern each time", () => {
  const first = matchAddress("/control/{A,B}", NO_IDS);
  assert.equal(matchAddress("/control/{A,B}", NO_IDS), first, "the same calls, not made again");
  // Clip ids change with the Project: its pattern is matched against the ids of now.
  const before = matchAddress("/clip/*/stop", NO_IDS);
  const after = matchAddress("/clip/*/stop", { ...NO_IDS, clipIds: () => ["c3"] });
  assert.notEqual(after, before);
  assert.deepEqual(after.map((m) => m.fromPath.get("clipID")), ["c3"]);
});

Deno.test("shortestFloat() reads a float32 as the decimal the desk meant", () => {
  assert.equal(shortestFloat(Math.fround(0.3)), 0.3);
  assert.equal(shortestFloat(Math.fround(0.1)), 0.1);
  assert.equal(shortestFloat(0.5), 0.5);
  assert.equal(shortestFloat(Math.fround(1 / 3)), 0.33333334);
});

Deno.test("splitOptions() takes key=value options and a bare reply out of the arguments", () => {
  const split = splitOptions(["s1", "reply=9000", "base=1", "other=2", 3], new Set(["base"]));
  assert.deepEqual(split.values, ["s1", "other=2", 3]);
  assert.deepEqual([...split.named], [["base", "1"]]);
  assert.equal(split.options.reply, 9000);
  assert.equal(splitOptions(["reply"], new Set()).options.reply, true);
  assert.throws(() => splitOptions(["reply=0"], new Set()), /must be a port/);
});

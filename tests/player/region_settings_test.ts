/**
 * The output's region as `player.json` keeps it (`PlayerSettings`, `player/store.ts`): a saved
 * region read back as it was, none the whole canvas, and one that is not a region (a file
 * edited by hand) the whole canvas, the other settings kept.
 */
import assert from "node:assert/strict";
import { PlayerSettings } from "../../player/store.ts";
import { FULL_REGION, parseRegion } from "../../protocol/region.ts";

Deno.test("PlayerSettings: outputRegion read back, absent or unreadable as the whole canvas", () => {
  const region = parseRegion("0.3,0,0.4,1;left=0.25;right=0.25");
  assert.deepEqual(PlayerSettings.parse({ outputRegion: region }).outputRegion, region);
  assert.equal(PlayerSettings.parse({}).outputRegion ?? null, null);
  const edited = PlayerSettings.parse({
    muted: true,
    outputRegion: { ...FULL_REGION, x: 0.8, width: 0.4 },
  });
  assert.equal(edited.outputRegion, null, "x 0.8 is no region's: out of the canvas");
  assert.equal(edited.muted, true, "the other settings kept");
  assert.equal(PlayerSettings.parse({ outputRegion: "full" }).outputRegion, null);
});

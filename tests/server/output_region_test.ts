/**
 * `OUTPUT_REGION` through the real service and player process (output `none`): the region is
 * `appState.outputRegion`, a bad one is refused at the door with its stable code, a restarted
 * player keeps the last one (`player.json`), and the `outputRegion` setting, given, chooses
 * the region at start (`docs/output.md`, "Wide stages").
 */
import assert from "node:assert/strict";
import { FULL_REGION } from "../../protocol/region.ts";
import { startTestService } from "../../tools/testing/service.ts";

const LEFT_THIRD = { ...FULL_REGION, width: 0.4, right: 0.25 };

Deno.test("OUTPUT_REGION sets appState.outputRegion, refuses a bad region, and is kept", async () => {
  let svc = await startTestService();
  try {
    const region = async () => (await svc.get("/api/v1/app-state")).body.outputRegion;
    assert.deepEqual(await region(), FULL_REGION, "the whole canvas at first");
    const run = await svc.post("/api/v1/action", {
      name: "OUTPUT_REGION",
      params: ["0,0,0.4,1;right=0.25"],
    });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.deepEqual(await region(), LEFT_THIRD);
    const again = await svc.post("/api/v1/action", {
      name: "OUTPUT_REGION",
      params: ["0, 0, 0.40, 1; right=0.25"],
    });
    assert.equal(again.status, 200);
    assert.match(JSON.stringify(again.body), /already shows region 0,0,0.4,1;right=0.25/);

    const bad = await svc.post("/api/v1/action", {
      name: "OUTPUT_REGION",
      params: ["0.7,0,0.4,1"],
    });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.equal(bad.body.error.code, "INVALID_MESSAGE");
    assert.equal(bad.body.error.details.reason, "REGION_OUTSIDE");
    assert.match(bad.body.error.message, /params\[0\] \(region\).*not within the canvas/);
    assert.deepEqual(await region(), LEFT_THIRD, "a refusal changes nothing");

    // Kept across a restart (player.json), as the display is; the setting's default keeps it.
    await svc.stop({ keepData: true });
    svc = await startTestService({}, { dataDir: svc.dataDir });
    assert.deepEqual(await region(), LEFT_THIRD);
    // The setting, given, chooses the region at start.
    await svc.stop({ keepData: true });
    svc = await startTestService({ outputRegion: "0.6,0,0.4,1;left=0.25" }, {
      dataDir: svc.dataDir,
    });
    assert.deepEqual(await region(), { ...FULL_REGION, x: 0.6, width: 0.4, left: 0.25 });
  } finally {
    await svc.stop();
  }
});

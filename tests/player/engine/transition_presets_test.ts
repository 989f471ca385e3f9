/**
 * Transition presets: ISF's transition rule (`startImage`, `endImage`, a float `progress`) is the
 * kind `transition`, checked like any preset's code, listed by `GET /api/v1/presets` and taken by
 * `preset.add`; a Clip's transition set over HTTP answers a field error for a wrong preset.
 */
import assert from "node:assert/strict";
import { isfKindOf, parseIsf } from "../../../player/isf/mod.ts";
import { startTestService } from "../../../tools/testing/service.ts";

/** ISF-Files' Dissolve.fs, as the collection has it. */
const DISSOLVE_FS = `/*{
  "DESCRIPTION": "",
  "CREDIT": "by VIDVOX",
  "ISFVSN": "2",
  "CATEGORIES": ["Dissolve"],
  "INPUTS": [
    {"NAME": "startImage", "TYPE": "image"},
    {"NAME": "endImage", "TYPE": "image"},
    {"NAME": "progress", "TYPE": "float", "MIN": 0.0, "MAX": 1.0, "DEFAULT": 0.0}
  ]
}*/
void main() {
  gl_FragColor = mix(IMG_THIS_NORM_PIXEL(startImage), IMG_THIS_NORM_PIXEL(endImage), progress);
}
`;

Deno.test("ISF's transition rule is the kind transition; startImage and endImage are a transition's only", () => {
  assert.equal(isfKindOf(DISSOLVE_FS), "transition");
  const ok = parseIsf(DISSOLVE_FS, "transition");
  assert.ok(ok.ok, JSON.stringify(ok));
  assert.deepEqual(ok.program.samplers, ["startImage", "endImage"]);
  const asEffect = parseIsf(DISSOLVE_FS, "effect");
  assert.ok(!asEffect.ok);
  assert.match(asEffect.problems[0]!.message, /"startImage" is a transition's picture/);
  const noProgress = parseIsf(DISSOLVE_FS.replace(/"progress"/, '"amount"'), "transition");
  assert.ok(!noProgress.ok);
  assert.ok(
    noProgress.problems.some((p) => /a transition's shader takes two pictures/.test(p.message)),
    JSON.stringify(noProgress.problems),
  );
  const mask = DISSOLVE_FS.replace(
    '{"NAME": "endImage", "TYPE": "image"},',
    '{"NAME": "endImage", "TYPE": "image"}, {"NAME": "maskImage", "TYPE": "image"},',
  );
  // A third image (a luma map, a mask) is taken, as the collection's Luma Transition has it.
  const masked = parseIsf(mask, "transition");
  assert.ok(masked.ok, JSON.stringify(masked));
  assert.deepEqual(masked.program.samplers, ["startImage", "endImage", "maskImage"]);
});

Deno.test("GET /api/v1/presets lists the transition presets; preset.add takes one; a wrong one is a field error", async () => {
  const svc = await startTestService();
  try {
    const list = (await svc.get("/api/v1/presets")).body.presets as {
      presetId: string;
      kind: string;
    }[];
    assert.deepEqual(
      list.filter((p) => p.kind === "transition").map((p) => p.presetId),
      ["tr-dissolve", "tr-wipe"],
    );
    const added = await svc.post("/api/v1/edit", {
      name: "preset.add",
      params: { kind: "transition", name: "VIDVOX Dissolve", type: "isf", code: DISSOLVE_FS },
    });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const id = added.body.edits[0].created.presetID;
    assert.match(id, /^tr-user-/);
    const one = await svc.get(`/api/v1/presets/transition/${id}`);
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.equal(one.body.kind, "transition");
    const set = await svc.post("/api/v1/edit", {
      name: "clip.update",
      params: { clipID: "c2", options: { transition: { presetId: id, duration: 1.5 } } },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const wrong = await svc.post("/api/v1/edit", {
      name: "clip.update",
      params: { clipID: "c2", options: { transition: { presetId: "fx-blur", duration: 1 } } },
    });
    assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
    assert.match(wrong.body.error.message, /options\.transition\.presetId/);
  } finally {
    await svc.stop();
  }
});

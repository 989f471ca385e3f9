/**
 * A wide stage's region (`protocol/region.ts`): its text read and written back, each refusal
 * with its stable code and a message that says what to change, the setting's parse, and the
 * present program's blend curve (`page/region.js`): two overlapping edges sum to full light.
 */
import assert from "node:assert/strict";
import {
  DEFAULT_BLEND_GAMMA,
  FULL_REGION,
  isFullRegion,
  parseRegion,
  RegionError,
  type RegionProblem,
  regionText,
} from "../../protocol/region.ts";
import { settingIssueMessage, SETTINGS } from "../../protocol/settings.ts";
import { edgeFactor, presentUniforms, regionCanvasSize } from "../../player/output/page/region.js";

Deno.test("parseRegion() reads full, a rectangle and its edges; regionText() writes it back", () => {
  assert.equal(parseRegion(" FULL "), FULL_REGION);
  assert.ok(isFullRegion(parseRegion("0,0,1,1")));
  assert.equal(
    regionText(parseRegion("0,0,1,1;gamma=1.8")),
    "full",
    "no edges: gamma says nothing",
  );
  assert.deepEqual(parseRegion(" 0.3 , 0, 0.4,1 ; left = 0.25;RIGHT=0.25;gamma=1.8 "), {
    x: 0.3,
    y: 0,
    width: 0.4,
    height: 1,
    left: 0.25,
    right: 0.25,
    top: 0,
    bottom: 0,
    gamma: 1.8,
  });
  for (
    const text of ["0,0,0.4,1;right=0.25", "0.6,0,0.4,1;left=0.25", "0,0.5,1,0.5;top=0.1;gamma=1"]
  ) {
    assert.equal(regionText(parseRegion(text)), text);
  }
  assert.equal(
    parseRegion("0.6,0,0.4,1").width,
    0.4,
    "0.6 + 0.4 is the canvas's edge, not past it",
  );
  assert.equal(parseRegion("0,0,0.4,1;").width, 0.4, "a trailing ; is nothing");
});

Deno.test("parseRegion() refuses with a stable code and says what to change", () => {
  const cases: [string, RegionProblem, RegExp][] = [
    ["", "REGION_SYNTAX", /empty: expected `full`, or `x,y,width,height`/],
    ["0,0,0.5", "REGION_SYNTAX", /has 3 number\(s\) where it needs 4/],
    ["0,0,half,1", "REGION_NUMBER", /width "half" is not a number/],
    [
      "0.7,0,0.4,1",
      "REGION_OUTSIDE",
      /horizontal span 0.7 to 1.1 is not within the canvas \(0 to 1\): give an x and a width/,
    ],
    ["0,-0.1,1,1", "REGION_OUTSIDE", /vertical span .*give a y and a height from 0/],
    ["0,0,0,1", "REGION_OUTSIDE", /horizontal span 0 to 0/],
    ["0,0,0.5,1;right=1.5", "REGION_EDGE", /right edge 1.5 is not from 0 to 1/],
    ["0,0,0.5,1;left=0.6;right=0.6", "REGION_EDGE", /left and right edges sum to 1.2/],
    ["0,0,0.5,1;right=0.2;gamma=9", "REGION_GAMMA", /gamma 9 is not from 0.5 to 4/],
    ["0,0,0.5,1;blend=0.2", "REGION_KEY", /"blend=0.2" is not one of left=N, right=N/],
    ["0,0,0.5,1;right", "REGION_KEY", /"right" is not one of/],
    ["0,0,0.5,1;right=0.1;right=0.2", "REGION_KEY", /gives right twice/],
  ];
  for (const [text, code, message] of cases) {
    assert.throws(
      () => parseRegion(text),
      (e) => e instanceof RegionError && e.code === code && message.test(e.message),
      `${JSON.stringify(text)}: ${code} ${message}`,
    );
  }
});

Deno.test("the outputRegion setting: full by default, canonical text, a refusal's message", () => {
  const schema = SETTINGS.outputRegion.schema;
  assert.equal(schema.parse(undefined), "full");
  assert.equal(schema.parse("0,0,0.40,1; right=0.25"), "0,0,0.4,1;right=0.25");
  const refused = schema.safeParse("0,0,0.4,1;right=2");
  assert.ok(!refused.success);
  assert.match(settingIssueMessage(refused.error.issues[0]!), /right edge 2 is not from 0 to 1/);
});

Deno.test("edgeFactor(): dark at the border, full across it; overlapping light sums to 1", () => {
  assert.equal(edgeFactor(0, 0.2, 2.2), 0);
  assert.equal(edgeFactor(0.2, 0.2, 2.2), 1);
  assert.equal(edgeFactor(0.5, 0, 2.2), 1, "no edge: full");
  assert.equal(
    presentUniforms().gamma,
    DEFAULT_BLEND_GAMMA,
    "the page's default is the protocol's",
  );
  for (const gamma of [1, 1.8, 2.2]) {
    for (let d = 0; d <= 0.2; d += 0.01) {
      const light = edgeFactor(d, 0.2, gamma) ** gamma + edgeFactor(0.2 - d, 0.2, gamma) ** gamma;
      assert.ok(Math.abs(light - 1) < 1e-9, `gamma ${gamma} at ${d}: ${light}`);
      assert.ok(edgeFactor(d + 0.01, 0.2, gamma) >= edgeFactor(d, 0.2, gamma), "it rises");
    }
  }
});

Deno.test("regionCanvasSize(): the canvas is the region's part of the display", () => {
  const size = { width: 0, height: 0 };
  const display = { width: 4800, height: 1080 };
  assert.deepEqual(regionCanvasSize(display, parseRegion("0.3,0,0.4,1"), 1, size), {
    width: 1920,
    height: 1080,
  });
  assert.deepEqual(regionCanvasSize(display, undefined, 0.5, size), { width: 2400, height: 540 });
});

Deno.test("the three machines of docs/output.md's wide stage sum to full light across the canvas", () => {
  const stage = [
    "0,0,0.4,1;right=0.25",
    "0.3,0,0.4,1;left=0.25;right=0.25",
    "0.6,0,0.4,1;left=0.25",
  ]
    .map(parseRegion);
  for (let i = 0; i <= 4800; i++) {
    const x = i / 4800; // each pixel edge of the 4800-pixel canvas
    let light = 0;
    for (const r of stage) {
      const u = (x - r.x) / r.width; // across the region, 0-1
      if (u < -1e-12 || u > 1 + 1e-12) continue;
      const k = edgeFactor(u, r.left, r.gamma) * edgeFactor(1 - u, r.right, r.gamma);
      light += k ** r.gamma; // a projector shows a pixel value v as light v^gamma
    }
    assert.ok(Math.abs(light - 1) < 1e-9, `canvas x ${i}: light ${light}`);
  }
});

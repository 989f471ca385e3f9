/**
 * The built-in presets are ISF: each one's code passes `parseIsf` (header
 * and GLSL) for its kind, and its parameters are its header's, with the ids
 * and parameter names Projects reference.
 */
import assert from "node:assert/strict";
import { BUILT_IN_PRESETS } from "../../../player/presets.ts";
import { parseIsf } from "../../../player/isf/mod.ts";

Deno.test("every built-in preset's code is ISF that parseIsf takes, with the header's parameters", () => {
  for (const preset of BUILT_IN_PRESETS) {
    const result = parseIsf(preset.code, preset.kind);
    if (!result.ok) throw new Error(`${preset.id}: ${JSON.stringify(result.problems)}`);
    assert.deepEqual(result.program.parameters, preset.parameters, preset.id);
  }
});

Deno.test("the built-in presets keep the ids, types and parameters Projects reference", () => {
  const summary = BUILT_IN_PRESETS.map((p) => ({
    id: p.id,
    kind: p.kind,
    type: p.type,
    parameters: p.parameters,
  }));
  assert.deepEqual(summary, [
    {
      id: "fx-blur",
      kind: "effect",
      type: "blur",
      parameters: [{ name: "radius", type: "number", min: 0, max: 50, default: 4 }],
    },
    {
      id: "fx-color-shift",
      kind: "effect",
      type: "color-shift",
      parameters: [
        { name: "hue", type: "number", min: -180, max: 180, default: 0 },
        { name: "tint", type: "color", default: "#ffffff" },
      ],
    },
    {
      id: "fx-kaleidoscope",
      kind: "effect",
      type: "kaleidoscope",
      parameters: [
        { name: "segments", type: "number", min: 2, max: 32, default: 6 },
        { name: "mirror", type: "boolean", default: true },
      ],
    },
    {
      id: "viz-spectrum",
      kind: "visualizer",
      type: "bars",
      parameters: [
        { name: "bands", type: "number", min: 8, max: 128, default: 32 },
        { name: "style", type: "enum", options: ["solid", "outline"], default: "solid" },
      ],
    },
    {
      id: "viz-scope",
      kind: "visualizer",
      type: "scope",
      parameters: [{ name: "thickness", type: "number", min: 1, max: 10, default: 2 }],
    },
    {
      id: "tr-dissolve",
      kind: "transition",
      type: "dissolve",
      parameters: [{ name: "progress", type: "number", min: 0, max: 1, default: 0 }],
    },
    {
      id: "tr-wipe",
      kind: "transition",
      type: "wipe",
      parameters: [
        { name: "progress", type: "number", min: 0, max: 1, default: 0 },
        { name: "angle", type: "number", min: 0, max: 360, default: 0 },
        { name: "softness", type: "number", min: 0, max: 0.5, default: 0.05 },
      ],
    },
    {
      id: "gen-solid",
      kind: "generator",
      type: "solid",
      parameters: [{ name: "color", type: "color", default: "#ffffff" }],
    },
    {
      id: "gen-plasma",
      kind: "generator",
      type: "plasma",
      parameters: [
        { name: "speed", type: "number", min: 0, max: 4, default: 1 },
        { name: "scale", type: "number", min: 0.5, max: 16, default: 4 },
      ],
    },
  ]);
});

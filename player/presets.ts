/**
 * The built-in Effect and Visualizer presets. User presets live in the data
 * dir (`presets.json`) and are listed after these.
 * @module
 */
import type { Preset } from "../protocol/model.ts";

/** Presets that ship with the player; they cannot be changed or removed. */
export const BUILT_IN_PRESETS: readonly Preset[] = [
  {
    id: "fx-blur",
    kind: "effect",
    name: "Blur",
    type: "blur",
    builtIn: true,
    code: "",
    parameters: [{ name: "radius", type: "number", min: 0, max: 50, default: 4 }],
  },
  {
    id: "fx-color-shift",
    kind: "effect",
    name: "Color Shift",
    type: "color-shift",
    builtIn: true,
    code: "",
    parameters: [
      { name: "hue", type: "number", min: -180, max: 180, default: 0 },
      { name: "tint", type: "color", default: "#ffffff" },
    ],
  },
  {
    id: "fx-kaleidoscope",
    kind: "effect",
    name: "Kaleidoscope",
    type: "kaleidoscope",
    builtIn: true,
    code: "",
    parameters: [
      { name: "segments", type: "number", min: 2, max: 32, default: 6 },
      { name: "mirror", type: "boolean", default: true },
    ],
  },
  {
    id: "viz-spectrum",
    kind: "visualizer",
    name: "Spectrum Bars",
    type: "bars",
    builtIn: true,
    code: "",
    parameters: [
      { name: "bands", type: "number", min: 8, max: 128, default: 32 },
      { name: "style", type: "enum", options: ["solid", "outline"], default: "solid" },
    ],
  },
  {
    id: "viz-scope",
    kind: "visualizer",
    name: "Oscilloscope",
    type: "scope",
    builtIn: true,
    code: "",
    parameters: [{ name: "thickness", type: "number", min: 1, max: 10, default: 2 }],
  },
];

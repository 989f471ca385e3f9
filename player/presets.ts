/**
 * The built-in Effect, Visualizer, transition and generator presets. User presets live in the data
 * dir (`presets.json`) and are listed after these. Each one's `code` is its
 * shader in ISF (`player/isf/built_in_shaders.ts`) and its parameters are
 * those its header declares; its `type` stays the name of the output's
 * built-in program that draws it until the renderer compiles preset code
 * (issue 33, phase 2), and Projects reference its id and parameter names.
 * @module
 */
import type { Preset } from "../protocol/model.ts";
import {
  BLUR_SHADER,
  COLOR_SHIFT_SHADER,
  DISSOLVE_SHADER,
  KALEIDOSCOPE_SHADER,
  OSCILLOSCOPE_SHADER,
  PLASMA_SHADER,
  SOLID_COLOR_SHADER,
  SPECTRUM_BARS_SHADER,
  WIPE_SHADER,
} from "./isf/built_in_shaders.ts";
import { isfHeaderParameters } from "./isf/mod.ts";

function builtIn(
  id: string,
  kind: Preset["kind"],
  name: string,
  type: string,
  code: string,
): Preset {
  return {
    id,
    kind,
    name,
    type,
    builtIn: true,
    code,
    parameters: isfHeaderParameters(code),
    quarantine: null,
  };
}

/** Presets that ship with the player; they cannot be changed or removed. */
export const BUILT_IN_PRESETS: readonly Preset[] = [
  builtIn("fx-blur", "effect", "Blur", "blur", BLUR_SHADER),
  builtIn("fx-color-shift", "effect", "Color Shift", "color-shift", COLOR_SHIFT_SHADER),
  builtIn("fx-kaleidoscope", "effect", "Kaleidoscope", "kaleidoscope", KALEIDOSCOPE_SHADER),
  builtIn("viz-spectrum", "visualizer", "Spectrum Bars", "bars", SPECTRUM_BARS_SHADER),
  builtIn("viz-scope", "visualizer", "Oscilloscope", "scope", OSCILLOSCOPE_SHADER),
  builtIn("tr-dissolve", "transition", "Dissolve", "dissolve", DISSOLVE_SHADER),
  builtIn("tr-wipe", "transition", "Wipe", "wipe", WIPE_SHADER),
  builtIn("gen-solid", "generator", "Solid Colour", "solid", SOLID_COLOR_SHADER),
  builtIn("gen-plasma", "generator", "Plasma", "plasma", PLASMA_SHADER),
];

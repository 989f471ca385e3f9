/**
 * The editor page's preview: the output's render state, smaller and silent, with the preset
 * open in the editor drawn over the whole picture by the output's own compositor.
 * @module
 */
import type { Preset } from "../../protocol/model.ts";
import type { RenderState, ShaderPass } from "../../protocol/output.ts";
import { drawsIsf } from "./isf_programs.ts";
import type { PagePrograms } from "./page_programs.ts";
import { shaderPass } from "./render_state.ts";

/** The preview's width at most (pixels): a second full-size picture would halve software GL. */
export const PREVIEW_WIDTH = 480;
/** The preview pass's id: a program its GL refuses gives way to the last that compiled. */
const PREVIEW_ID = "editor-preview";

/** A copy of `pass` whose ISF targets are `scale` times their size (at least a pixel). */
function scaled(pass: ShaderPass, scale: number): ShaderPass {
  const sizes = pass.sizes?.map(([w, h]): [number, number] => [
    Math.max(1, Math.round(w * scale)),
    Math.max(1, Math.round(h * scale)),
  ]);
  return sizes ? { ...pass, sizes } : { ...pass };
}

/**
 * The output's `state`, at most PREVIEW_WIDTH wide and silent, with `preset` drawn over the
 * whole picture with its defaults (an effect takes the picture as `inputImage`), its program
 * among the editor page's `programs`.
 */
export function previewState(
  state: RenderState,
  preset: Preset,
  programs: PagePrograms,
): RenderState {
  const { display } = state;
  const scale = Math.min(1, PREVIEW_WIDTH / display.width);
  const size = {
    width: Math.max(1, Math.round(display.width * scale)),
    height: Math.max(1, Math.round(display.height * scale)),
  };
  // The preset as a Visualizer of its own over the picture: its defaults, and for ISF
  // PASSES its targets' sizes at the preview's size (`shaderPass`, as the output's).
  const item = { id: PREVIEW_ID, name: preset.name, engine: preset.type, presetId: preset.id };
  // A quarantined preset (its shader stopped the output) is not previewed until its code changes:
  // the editor's page shares the output's GPU process.
  const passes = drawsIsf(preset) && !preset.quarantine
    ? [
      shaderPass({ ...item, enabled: true, params: {} }, {
        presets: [preset],
        programs: programs.programs,
        size,
      }),
    ]
    : [];
  return {
    ...state,
    display: { ...display, ...size },
    // Copies (the passes of a program this page refused are changed for the last working),
    // their targets scaled as the picture is.
    layers: state.layers.map((l) => ({ ...l, effects: l.effects.map((e) => scaled(e, scale)) })),
    visualizers: [...state.visualizers.map((v) => scaled(v, scale)), ...passes],
    level: 0,
  };
}

// The picture: each layer through its passes (filters, Effects), blended in order over the
// background colour with its opacity, then the visualizers, then the display's zoom.
import { compile, pass, quad, target, texture, uploadRow } from "./gl.js";
import { createIsfPasses } from "./isf_passes.js";

const COMPOSITE = `#version 300 es
precision highp float;
in vec2 v_uv; out vec4 outColor;
uniform sampler2D u_image; uniform float opacity;
void main() { vec4 c = texture(u_image, v_uv); outColor = vec4(c.rgb, c.a * opacity); }`;
const PRESENT = `#version 300 es
precision highp float;
in vec2 v_uv; out vec4 outColor;
uniform sampler2D u_image; uniform float zoom; uniform vec3 background;
void main() {
  vec2 uv = (v_uv - 0.5) / zoom + 0.5;
  bool isInside = all(greaterThanEqual(uv, vec2(0.0))) && all(lessThanEqual(uv, vec2(1.0)));
  outColor = isInside ? texture(u_image, uv) : vec4(background, 1.0);
}`;

/** ISF's DATE: year, month (1-12), day, seconds into the day. */
function dateNow() {
  const d = new Date();
  const seconds = d.getHours() * 3600 + d.getMinutes() * 60 + d.getSeconds();
  return [d.getFullYear(), d.getMonth() + 1, d.getDate(), seconds + d.getMilliseconds() / 1000];
}

function parseColor(text) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(text);
  return m ? [1, 2, 3].map((i) => parseInt(m[i], 16) / 255) : [0, 0, 0];
}

/** `program` compiled, or its `fallback` (ES 1.00 code as ES 3.00) when GL refuses it. */
function compileProgram(gl, program) {
  try {
    return compile(gl, program.source, program.vertex);
  } catch (error) {
    if (!program.fallback) throw error;
    try {
      return compile(gl, program.fallback.source, program.fallback.vertex);
    } catch {
      throw error;
    }
  }
}

/** Whether a layer's filters change nothing (no filter pass is drawn). */
function isNeutral(f) {
  return f.brightness === 0 && f.contrast === 1 && f.saturation === 1 && f.hue === 0 &&
    f.blur === 0;
}

/** Whether a built-in Effect's pass changes nothing (a blur of radius 0, a shift of no hue). */
export function isIdentity(p) {
  const u = p.uniforms;
  if (p.program === "blur") return u.radius === 0;
  if (p.program === "color-shift") {
    return (u.hue ?? 0) === 0 && (u.tint === undefined || u.tint.every((v) => v === 1));
  }
  return false;
}

/**
 * The layers that show something, bottom first, with their pictures: not those at opacity 0,
 * nor those under an opaque one (a video or camera at full opacity with no Effect covers the
 * whole picture: its texels have alpha 1 and every pass draws the full frame).
 */
export function visibleLayers(layers, textureOf) {
  const shown = [];
  for (const layer of layers) {
    const source = layer.kind === "audio" ? null : textureOf(layer.clipId);
    if (!source || layer.opacity <= 0) continue;
    const isOpaque = (layer.kind === "video" || layer.kind === "camera") && layer.opacity >= 1 &&
      layer.effects.length === 0;
    if (isOpaque) shown.length = 0;
    shown.push({ layer, source });
  }
  return shown;
}

/**
 * A compositor on `canvas`, or null without a WebGL2 that compiles (no context, or a GPU
 * that fails every shader): the page then says so and the player tries software GL.
 */
// long: the compositor's closure, like a class: its GL state and the short functions over it
export function createCompositor(canvas) {
  const gl = canvas.getContext("webgl2", {
    // Not kept between frames (a copy less a frame): a picture is read in the task that drew it.
    preserveDrawingBuffer: false,
    alpha: false,
    antialias: false,
  });
  if (!gl) return null;
  let internal;
  try {
    internal = { composite: compile(gl, COMPOSITE), present: compile(gl, PRESENT) };
    quad(gl);
  } catch {
    return null;
  }
  const programs = new Map();
  const isfPasses = createIsfPasses(gl);
  const spectrum = { texture: texture(gl), wave: texture(gl), bins: 1 };
  let frameIndex = -1;
  let targets = null;

  /** The canvas at `canvasSize`, the targets at the size drawn (a render scale's). */
  function ensureTargets(canvasSize, width, height) {
    if (canvas.width !== canvasSize.width) canvas.width = canvasSize.width;
    if (canvas.height !== canvasSize.height) canvas.height = canvasSize.height;
    if (targets && targets.width === width && targets.height === height) return;
    for (const t of targets ? [targets.a, targets.b, targets.out] : []) {
      gl.deleteFramebuffer(t.fb);
      gl.deleteTexture(t.texture);
    }
    targets = {
      width,
      height,
      a: target(gl, width, height),
      b: target(gl, width, height),
      out: target(gl, width, height),
    };
  }

  /** What an ISF program is given beside its inputs: ISF's built-ins and its samplers. */
  function isfBindings(compiled, input, time, size) {
    const values = {
      TIME: time / 1000,
      TIMEDELTA: 1 / 30,
      RENDERSIZE: [size.width, size.height],
      FRAMEINDEX: frameIndex,
      DATE: dateNow(),
    };
    const textures = {};
    for (const s of compiled.samplers) {
      const isImage = s.type === "image";
      textures[s.name] = isImage ? input : s.type === "audio" ? spectrum.wave : spectrum.texture;
      values[`_${s.name}_imgSize`] = isImage ? [size.width, size.height] : [spectrum.bins, 1];
    }
    return { values, textures };
  }

  /**
   * Draws `passes` over `source`: `time` and `size` the render's, `extra` textures for every
   * pass, `owner` the chain's (a layer's Clip), whose ISF targets are its own.
   */
  function runPasses(passes, source, { time, size, scale, extra = {}, owner = "" }) {
    let input = source;
    let flip = targets.a;
    // An Effect's targets are its own by its id and its occurrence in the chain, not by its
    // index: a filter pass put before it, or an earlier Effect turned off, keeps them.
    const seen = new Map();
    for (const p of passes) {
      const compiled = programs.get(p.program);
      if (!compiled) continue;
      const isf = compiled.samplers ? isfBindings(compiled, input, time, size) : null;
      if (isf && compiled.passes) {
        // ISF's PASSES: the picture is the last pass's, in its target or in `flip`.
        const id = p.id ?? p.program;
        const n = seen.get(id) ?? 0;
        seen.set(id, n + 1);
        const own = `${owner}/${id}/${n}`;
        const options = { bindings: isf, out: flip, size, scale };
        input = isfPasses.run(compiled, { ...p, owner: own }, options);
        if (input !== flip.texture) continue;
      } else {
        const values = {
          u_resolution: [size.width, size.height],
          u_time: time / 1000,
          ...isf?.values,
          ...p.uniforms,
        };
        const textures = { u_image: input, ...extra, ...isf?.textures };
        pass(gl, compiled, flip, textures, values, size);
        input = flip.texture;
      }
      flip = flip === targets.a ? targets.b : targets.a;
    }
    return input;
  }

  function drawLayer(layer, source, clock, size, scale) {
    // Neutral filters and Effects that change nothing cost nothing: a full-screen pass less
    // each on software GL.
    const effects = layer.effects.filter((e) => !isIdentity(e));
    const f = layer.filters;
    const passes = isNeutral(f) ? effects : [{ program: "layer", uniforms: f }, ...effects];
    const result = runPasses(passes, source, { time: clock, size, scale, owner: layer.clipId });
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    const opacity = { opacity: layer.opacity };
    pass(gl, internal.composite, targets.out, { u_image: result }, opacity, size);
    gl.disable(gl.BLEND);
  }

  /** The Song's spectrum and waveform as 1-pixel-high textures, for this frame. */
  function uploadAudio(analyser) {
    const bins = new Uint8Array(analyser.frequencyBinCount);
    analyser.getByteFrequencyData(bins);
    uploadRow(gl, spectrum.texture, bins);
    analyser.getByteTimeDomainData(bins);
    uploadRow(gl, spectrum.wave, bins);
    spectrum.bins = bins.length;
  }

  function drawVisualizers(visualizers, picture, clock, size, scale) {
    const extra = { u_spectrum: spectrum.texture, u_wave: spectrum.wave };
    return runPasses(visualizers, picture, { time: clock, size, scale, extra });
  }

  return {
    gl,
    /**
     * Compiles a program (`{name, source, vertex?, samplers?, passes?, fallback?}`: its
     * `fallback` sources when GL refuses `source`), or takes it as `compiled` already;
     * throws the log of `source` when neither compiles.
     */
    addProgram(program, compiled = compileProgram(gl, program)) {
      const passes = program.passes?.length ? program.passes : null;
      programs.set(program.name, { ...compiled, samplers: program.samplers ?? null, passes });
    },
    /** Deletes a program the player no longer draws. */
    dropProgram(name) {
      const compiled = programs.get(name);
      if (compiled) gl.deleteProgram(compiled.program);
      programs.delete(name);
    },
    /**
     * Draws `state` at `clock`; `textureOf(clipId)` is a layer's picture or null. `scale`
     * (`render_scale.js`) draws every pass that much smaller, and the canvas is the display's
     * size times `canvasScale` (the browser scales it to the window: a canvas at the display's
     * size costs a full-size pass more and the browser's copy of it, about 55 ms a 1080p frame
     * with software GL; a recording records the canvas at its size).
     */
    draw(state, clock, textureOf, analyser, scale = 1, canvasScale = 1) {
      const { display } = state;
      const scaled = (k) => ({
        width: Math.max(1, Math.round(display.width * k)),
        height: Math.max(1, Math.round(display.height * k)),
      });
      const size = scaled(scale);
      const canvasSize = scaled(canvasScale);
      ensureTargets(canvasSize, size.width, size.height);
      const [r, g, b] = parseColor(display.backgroundColor);
      frameIndex++;
      uploadAudio(analyser);
      gl.bindFramebuffer(gl.FRAMEBUFFER, targets.out.fb);
      gl.viewport(0, 0, size.width, size.height);
      gl.clearColor(r, g, b, 1);
      gl.clear(gl.COLOR_BUFFER_BIT);
      for (const { layer, source } of visibleLayers(state.layers, textureOf)) {
        drawLayer(layer, source, clock, size, scale);
      }
      let picture = targets.out.texture;
      if (state.visualizers.length > 0) {
        picture = drawVisualizers(state.visualizers, picture, clock, size, scale);
      }
      const framing = { zoom: display.zoom, background: [r, g, b] };
      pass(gl, internal.present, null, { u_image: picture }, framing, canvasSize);
      isfPasses.endFrame();
    },
  };
}

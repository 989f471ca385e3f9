// @ts-check
// The picture: each layer through its passes (filters, Effects), blended in order over the
// background colour with its opacity, then the visualizers, then the display's zoom.
import { compile, countObjects, pass, quad, target, texture, uploadRow } from "./gl.js";
import { IsfPasses } from "./isf_passes.js";

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

/** @typedef {import("../../../protocol/output.ts").RenderState} RenderState */
/** @typedef {import("../../../protocol/output.ts").RenderLayer} RenderLayer */
/** @typedef {import("../../../protocol/output.ts").ShaderPass} ShaderPass */
/** @typedef {import("../../../protocol/output.ts").ShaderProgram} ShaderProgram */
/** @typedef {import("./gl.js").Compiled} Compiled */
/** @typedef {import("./gl.js").Size} Size */
/** @typedef {import("./gl.js").Target} Target */
/** @typedef {import("./gl.js").UniformValue} UniformValue */
/** @typedef {import("./isf_passes.js").Bindings} Bindings */
/** @typedef {import("./isf_passes.js").PassesProgram} PassesProgram */
/** @typedef {NonNullable<ShaderProgram["samplers"]>} Samplers */
/**
 * A program as the compositor keeps it: compiled, with its ISF samplers and passes (null: none).
 * @typedef {Compiled & {samplers: Samplers | null, passes: PassesProgram["passes"] | null}} Program
 */
/**
 * A layer's picture, or null before it has one.
 * @typedef {(clipId: string) => WebGLTexture | null} TextureOf
 */
/**
 * The render's targets: two to draw passes in turn, one to blend the layers in.
 * @typedef {{width: number, height: number, a: Target, b: Target, out: Target}} Targets
 */
/**
 * How a chain of passes is drawn: `time` and `size` the render's, `extra` textures for every
 * pass, `owner` the chain's (a layer's Clip), whose ISF targets are its own.
 * @typedef {{
 *   time: number,
 *   size: Size,
 *   scale: number,
 *   extra?: Record<string, WebGLTexture>,
 *   owner?: string,
 * }} Chain
 */

/**
 * ISF's DATE: year, month (1-12), day, seconds into the day.
 * @returns {number[]}
 */
function dateNow() {
  const d = new Date();
  const seconds = d.getHours() * 3600 + d.getMinutes() * 60 + d.getSeconds();
  return [d.getFullYear(), d.getMonth() + 1, d.getDate(), seconds + d.getMilliseconds() / 1000];
}

/**
 * `#rrggbb` as three 0-1 numbers (black when it is not one).
 * @param {string} text
 * @returns {[number, number, number]}
 */
function parseColor(text) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(text);
  /** @type {(i: number) => number} */
  const at = (i) => parseInt(m?.[i] ?? "0", 16) / 255;
  return [at(1), at(2), at(3)];
}

/**
 * `program` compiled, or its `fallback` (ES 1.00 code as ES 3.00) when GL refuses it.
 * @param {WebGL2RenderingContext} gl
 * @param {ShaderProgram} program
 */
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

/**
 * Whether a layer's filters change nothing (no filter pass is drawn).
 * @param {RenderLayer["filters"]} f
 */
function isNeutral(f) {
  return f.brightness === 0 && f.contrast === 1 && f.saturation === 1 && f.hue === 0 &&
    f.blur === 0;
}

/**
 * The layers that show something, bottom first, with their pictures: not those at opacity 0,
 * nor those under an opaque one (a video or camera at full opacity with no Effect covers the
 * whole picture: its texels have alpha 1 and every pass draws the full frame).
 * @param {RenderLayer[]} layers
 * @param {TextureOf} textureOf
 */
export function visibleLayers(layers, textureOf) {
  /** @type {{layer: RenderLayer, source: WebGLTexture}[]} */
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

/** The picture of a render state, drawn with WebGL2 on a canvas. */
export class Compositor {
  /** The canvas's context. @type {WebGL2RenderingContext} */
  gl;
  #canvas;
  #internal;
  /** @type {Map<string, Program>} */
  #programs = new Map();
  #isfPasses;
  #spectrum;
  #frameIndex = -1;
  /** @type {Targets | null} */
  #targets = null;

  /**
   * A compositor on `canvas`, or null without a WebGL2 that compiles (no context, or a GPU
   * that fails every shader): the page then says so and the player tries software GL.
   * @param {HTMLCanvasElement} canvas
   */
  static create(canvas) {
    const gl = canvas.getContext("webgl2", {
      // Not kept between frames (a copy less a frame): a picture is read in the task that drew it.
      preserveDrawingBuffer: false,
      alpha: false,
      antialias: false,
    });
    if (!gl) return null;
    countObjects(gl);
    try {
      const internal = { composite: compile(gl, COMPOSITE), present: compile(gl, PRESENT) };
      quad(gl);
      return new Compositor(canvas, gl, internal);
    } catch {
      return null;
    }
  }

  /**
   * Use `Compositor.create`.
   * @param {HTMLCanvasElement} canvas
   * @param {WebGL2RenderingContext} gl
   * @param {{composite: Compiled, present: Compiled}} internal
   */
  constructor(canvas, gl, internal) {
    this.#canvas = canvas;
    this.gl = gl;
    this.#internal = internal;
    this.#isfPasses = new IsfPasses(gl);
    this.#spectrum = { texture: texture(gl), wave: texture(gl), bins: 1 };
  }

  /** The context's live GL objects by kind, now (a copy). */
  get objects() {
    return { ...countObjects(this.gl) };
  }

  /** ISF's FRAMEINDEX and TIMEDELTA of the last frame drawn (the page reports them). */
  get lastFrame() {
    return { index: this.#frameIndex, timeDelta: 1 / 30 };
  }

  /**
   * Compiles a program (its `fallback` sources when GL refuses `source`), or takes it as
   * `compiled` already; throws the log of `source` when neither compiles.
   * @param {ShaderProgram} program
   */
  addProgram(program, compiled = compileProgram(this.gl, program)) {
    const passes = program.passes?.length ? program.passes : null;
    this.#programs.set(program.name, { ...compiled, samplers: program.samplers ?? null, passes });
  }

  /**
   * Deletes a program the player no longer draws.
   * @param {string} name
   */
  dropProgram(name) {
    const compiled = this.#programs.get(name);
    if (compiled) this.gl.deleteProgram(compiled.program);
    this.#programs.delete(name);
  }

  /**
   * Takes the player's programs message: drops those named in `drop`, compiles each of
   * `programs`, and tells `refused` each one GL refused (nothing once the context is lost:
   * they are all sent again with the new one).
   * @param {ShaderProgram[]} programs
   * @param {string[]} drop
   * @param {(program: ShaderProgram, log: string) => void} refused
   */
  takePrograms(programs, drop, refused) {
    for (const name of drop) this.dropProgram(name);
    for (const p of programs) {
      try {
        this.addProgram(p);
      } catch (error) {
        if (this.gl.isContextLost()) return;
        refused(p, error instanceof Error ? error.message : String(error));
      }
    }
  }

  /**
   * Draws `state` at `clock`; `textureOf(clipId)` is a layer's picture or null. `scale`
   * (`render_scale.js`) draws every pass that much smaller, and the canvas is the display's
   * size times `canvasScale` (the browser scales it to the window: a canvas at the display's
   * size costs a full-size pass more and the browser's copy of it, about 55 ms a 1080p frame
   * with software GL; a recording records the canvas at its size).
   * @param {RenderState} state
   * @param {number} clock
   * @param {TextureOf} textureOf
   * @param {AnalyserNode} analyser
   */
  draw(state, clock, textureOf, analyser, scale = 1, canvasScale = 1) {
    const gl = this.gl;
    const { display } = state;
    /** @type {(k: number) => Size} */
    const scaled = (k) => ({
      width: Math.max(1, Math.round(display.width * k)),
      height: Math.max(1, Math.round(display.height * k)),
    });
    const size = scaled(scale);
    const canvasSize = scaled(canvasScale);
    const targets = this.#ensureTargets(canvasSize, size);
    const [r, g, b] = parseColor(display.backgroundColor);
    this.#frameIndex++;
    this.#uploadAudio(analyser);
    gl.bindFramebuffer(gl.FRAMEBUFFER, targets.out.fb);
    gl.viewport(0, 0, size.width, size.height);
    gl.clearColor(r, g, b, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    for (const { layer, source } of visibleLayers(state.layers, textureOf)) {
      this.#drawLayer(layer, source, { time: clock, size, scale, owner: layer.clipId });
    }
    let picture = targets.out.texture;
    if (state.visualizers.length > 0) {
      const extra = { u_spectrum: this.#spectrum.texture, u_wave: this.#spectrum.wave };
      picture = this.#runPasses(state.visualizers, picture, { time: clock, size, scale, extra });
    }
    const framing = { zoom: display.zoom, background: [r, g, b] };
    pass(gl, this.#internal.present, null, { u_image: picture }, framing, canvasSize);
    this.#isfPasses.endFrame();
  }

  /**
   * The canvas at `canvasSize`, the targets at the size drawn (a render scale's).
   * @param {Size} canvasSize
   * @param {Size} size
   * @returns {Targets}
   */
  #ensureTargets(canvasSize, { width, height }) {
    const canvas = this.#canvas;
    if (canvas.width !== canvasSize.width) canvas.width = canvasSize.width;
    if (canvas.height !== canvasSize.height) canvas.height = canvasSize.height;
    const old = this.#targets;
    if (old && old.width === width && old.height === height) return old;
    for (const t of old ? [old.a, old.b, old.out] : []) {
      this.gl.deleteFramebuffer(t.fb);
      this.gl.deleteTexture(t.texture);
    }
    const gl = this.gl;
    this.#targets = {
      width,
      height,
      a: target(gl, width, height),
      b: target(gl, width, height),
      out: target(gl, width, height),
    };
    return this.#targets;
  }

  /**
   * What an ISF program is given beside its inputs: ISF's built-ins and its samplers.
   * @param {Samplers} samplers
   * @param {WebGLTexture} input
   * @param {number} time
   * @param {Size} size
   * @returns {Bindings}
   */
  #isfBindings(samplers, input, time, size) {
    const spectrum = this.#spectrum;
    /** @type {Record<string, UniformValue>} */
    const values = {
      TIME: time / 1000,
      TIMEDELTA: 1 / 30,
      RENDERSIZE: [size.width, size.height],
      FRAMEINDEX: this.#frameIndex,
      DATE: dateNow(),
    };
    /** @type {Record<string, WebGLTexture>} */
    const textures = {};
    for (const s of samplers) {
      const isImage = s.type === "image";
      textures[s.name] = isImage ? input : s.type === "audio" ? spectrum.wave : spectrum.texture;
      values[`_${s.name}_imgSize`] = isImage ? [size.width, size.height] : [spectrum.bins, 1];
    }
    return { values, textures };
  }

  /**
   * Draws `passes` over `source` (a chain: `chain` says how); answers its picture.
   * @param {ShaderPass[]} passes
   * @param {WebGLTexture} source
   * @param {Chain} chain
   */
  #runPasses(passes, source, { time, size, scale, extra = {}, owner = "" }) {
    const targets = this.#targets;
    if (!targets) return source;
    let input = source;
    let flip = targets.a;
    // An Effect's targets are its own by its id and its occurrence in the chain, not by its
    // index: a filter pass put before it, or an earlier Effect turned off, keeps them.
    const seen = new Map();
    for (const p of passes) {
      const compiled = this.#programs.get(p.program);
      if (!compiled) continue;
      const isf = compiled.samplers
        ? this.#isfBindings(compiled.samplers, input, time, size)
        : null;
      if (isf && compiled.passes) {
        // ISF's PASSES: the picture is the last pass's, in its target or in `flip`.
        const id = p.id ?? p.program;
        const n = seen.get(id) ?? 0;
        seen.set(id, n + 1);
        const own = `${owner}/${id}/${n}`;
        const options = { bindings: isf, out: flip, size, scale };
        const program = /** @type {PassesProgram} */ (compiled);
        input = this.#isfPasses.run(program, { ...p, owner: own }, options);
        if (input !== flip.texture) continue;
      } else {
        const values = {
          u_resolution: [size.width, size.height],
          u_time: time / 1000,
          ...isf?.values,
          ...p.uniforms,
        };
        const textures = { u_image: input, ...extra, ...isf?.textures };
        pass(this.gl, compiled, flip, textures, values, size);
        input = flip.texture;
      }
      flip = flip === targets.a ? targets.b : targets.a;
    }
    return input;
  }

  /**
   * Draws a layer through its filters and Effects, blended over the picture at its opacity.
   * @param {RenderLayer} layer
   * @param {WebGLTexture} source
   * @param {Chain} chain
   */
  #drawLayer(layer, source, chain) {
    const gl = this.gl;
    const targets = this.#targets;
    if (!targets) return;
    // Neutral filters cost nothing: a full-screen pass less on software GL.
    const effects = layer.effects;
    const f = layer.filters;
    const passes = isNeutral(f) ? effects : [{ program: "layer", uniforms: f }, ...effects];
    const result = this.#runPasses(passes, source, chain);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    const opacity = { opacity: layer.opacity };
    pass(gl, this.#internal.composite, targets.out, { u_image: result }, opacity, chain.size);
    gl.disable(gl.BLEND);
  }

  /**
   * The Song's spectrum and waveform as 1-pixel-high textures, for this frame.
   * @param {AnalyserNode} analyser
   */
  #uploadAudio(analyser) {
    const spectrum = this.#spectrum;
    const bins = new Uint8Array(analyser.frequencyBinCount);
    analyser.getByteFrequencyData(bins);
    uploadRow(this.gl, spectrum.texture, bins);
    analyser.getByteTimeDomainData(bins);
    uploadRow(this.gl, spectrum.wave, bins);
    spectrum.bins = bins.length;
  }
}

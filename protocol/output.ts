/**
 * The output page's wire shapes (`docs/output.md`), declared once: what the
 * player pushes to the page it shows in a browser (a compact render state on
 * the player's clock, shader programs, commands) and what the page answers
 * (its clock offset, frame reports, pictures, recording chunks, faults). The
 * page keeps no show logic: it maps the player's clock and draws.
 * @module
 */
import { z } from "zod";
import type { SocketBounds } from "./socket_bounds.ts";
import { PICTURE_FORMATS } from "./pictures.ts";
import { OutputRegion } from "./region.ts";

/** How the player shows its output (the `output` setting). */
export const OutputMode = z.enum(["auto", "window", "fullscreen", "headless", "none"]);
/** How the player shows its output. */
export type OutputMode = z.infer<typeof OutputMode>;

/** Image filters of a layer; neutral: brightness 0, contrast 1, saturation 1, hue 0, blur 0. */
export const LayerFilters = z.object({
  brightness: z.number(),
  contrast: z.number(),
  saturation: z.number(),
  hue: z.number(),
  blur: z.number(),
});

/** The most passes an ISF program has (`PASSES`; ISF-Files' multi-pass shaders have 10 at most). */
export const ISF_MAX_PASSES = 16;
/** The largest side of an ISF pass's target, in pixels. */
export const ISF_MAX_TARGET_SIDE = 4096;

const Side = z.number().int().positive().max(ISF_MAX_TARGET_SIDE);

/**
 * Where the page reads an ISF image input other than `inputImage` (`model.ts` ImageSource as
 * the page resolves it): a playing Clip's layer picture, the layers drawn below, a playing
 * camera's picture, or an image at a loopback URL of the output server (a Project's image
 * file, a preset's `IMPORTED` image). An input not listed reads transparent black (1x1).
 */
export const RenderImage = z.discriminatedUnion("from", [
  z.object({ from: z.literal("clip"), clipId: z.string() }),
  z.object({ from: z.literal("below") }),
  z.object({ from: z.literal("camera"), cameraId: z.string() }),
  z.object({ from: z.literal("url"), url: z.string() }),
]);
/** One image input's source on the page. */
export type RenderImage = z.infer<typeof RenderImage>;

/**
 * One shader pass: a program by name, its uniform values, the Effect's or
 * Visualizer's id (which owns its ISF targets), and for an ISF program with
 * `PASSES` the size in pixels of each pass's target, evaluated by the player.
 */
export const ShaderPass = z.object({
  program: z.string(),
  uniforms: z.record(z.string(), z.union([z.number(), z.boolean(), z.array(z.number())])),
  id: z.string().optional(),
  sizes: z.array(z.tuple([Side, Side])).max(ISF_MAX_PASSES).optional(),
  /** The program's image inputs other than `inputImage`, bound (`RenderImage`). */
  inputs: z.record(z.string(), RenderImage).optional(),
});
/** One shader pass. */
export type ShaderPass = z.infer<typeof ShaderPass>;

/**
 * One playing or paused Clip, bottom first. Its position follows
 * `position + rate * (clock - at) / 1000`, wrapped when `loop`, clamped to
 * 0..`duration` otherwise (`at` and `clock` on the player's clock, ms).
 */
export const RenderLayer = z.object({
  clipId: z.string(),
  /**
   * `image`, `video` or `audio` from the project's files, `camera` for a live camera,
   * `generator` for a Clip that plays a generator preset (`generator`), `none`.
   */
  kind: z.enum(["image", "video", "audio", "camera", "generator", "none"]),
  /** Loopback URL of the media (relative to the page), or the camera's device id. */
  source: z.string().nullable(),
  /** Thumbnail-card text shown when the media cannot be decoded. */
  name: z.string(),
  position: z.number(),
  at: z.number(),
  /** Seconds of media per second of clock: negative backward, 0 paused. */
  rate: z.number(),
  duration: z.number(),
  loop: z.boolean(),
  opacity: z.number(),
  /** The Clip's volume times its velocity gain. */
  volume: z.number(),
  filters: LayerFilters,
  effects: z.array(ShaderPass),
  /**
   * A generator Clip's shader (kind `generator`): drawn as the layer's picture each frame at
   * the render's size, `TIME` the layer's position (s), before its filters and Effects.
   */
  generator: ShaderPass.optional(),
});
/** One layer. */
export type RenderLayer = z.infer<typeof RenderLayer>;

/**
 * A crossing through a transition preset: the page draws the outgoing picture (every layer but
 * `incoming`) and the incoming one (every layer but `outgoing`) and mixes them with `pass`, an
 * ISF program reading `startImage`, `endImage` and `progress`. Progress is
 * `(clock - start) / (duration * 1000)` held to 0..1 (`progress` is its value at the state's
 * clock); at 1 the page draws the incoming picture alone.
 */
export const RenderTransition = z.object({
  pass: ShaderPass,
  /** Player clock, ms. */
  start: z.number(),
  /** Seconds. */
  duration: z.number().positive(),
  progress: z.number().min(0).max(1),
  /** Clip ids of layers drawn only in the outgoing picture. */
  outgoing: z.array(z.string()),
  /** Clip ids of layers drawn only in the incoming picture. */
  incoming: z.array(z.string()),
});
/** A crossing. */
export type RenderTransition = z.infer<typeof RenderTransition>;

/** The player's clock as the page maps it: `now` held at the moment of sending, moving at `rate`. */
export const OutputClock = z.object({
  now: z.number(),
  /** 1 on the real clock; 0 on a virtual clock (it moves only by new states). */
  rate: z.number(),
});

/** Everything the page draws and plays, at one reading of the player's clock. */
export const RenderState = z.object({
  /** Increases with every state sent; frame reports name the last drawn. */
  seq: z.number().int(),
  clock: OutputClock,
  display: z.object({
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    fps: z.number().positive(),
    backgroundColor: z.string(),
    zoom: z.number().positive(),
  }),
  layers: z.array(RenderLayer),
  /** The active Song's audio while it plays or is paused. */
  song: z.object({
    source: z.string(),
    position: z.number(),
    at: z.number(),
    rate: z.number(),
    volume: z.number(),
  }).nullable(),
  visualizers: z.array(ShaderPass),
  /** The crossing under way, if any (absent: none). */
  transition: RenderTransition.optional(),
  /** Master level 0-1 after mute. */
  level: z.number(),
  fullScreen: z.boolean(),
  /** The region of the canvas this output shows, with its blend edges; absent: the whole. */
  region: OutputRegion.optional(),
  /** Bumped by PANIC: the page silences at once and reloads its media. */
  panic: z.number().int(),
});
/** The render state. */
export type RenderState = z.infer<typeof RenderState>;

/**
 * A fragment shader and the uniforms it declares (beside the built-ins). A
 * built-in program is GLSL ES 3.00 drawn with the page's vertex shader; an
 * ISF preset's (`isf-<hash of its sources>`) is GLSL ES 1.00 (or 3.00) with
 * its own `vertex` (WebGL2 links only shaders of one version) and its
 * `samplers`: `image` takes the layer so far, `audio` and `audioFFT` the
 * Song's waveform and spectrum. `passes` are its ISF `PASSES`: each renders
 * into its `target` (read by name in later passes; null: the output), the
 * last one's picture is the program's. `fallback` is ES 1.00 code as ES 3.00,
 * for a GL that refuses it as ES 1.00 (its loop and index limits).
 */
export const ShaderProgram = z.object({
  name: z.string(),
  source: z.string(),
  uniforms: z.array(z.object({
    name: z.string(),
    type: z.enum(["float", "int", "bool", "vec2", "vec3", "vec4"]),
    default: z.union([z.number(), z.boolean(), z.array(z.number())]),
  })),
  vertex: z.string().optional(),
  /**
   * `vertex` is the preset's own (`vertexCode`): it may leave pixels of a pass uncovered,
   * so each pass's target is cleared to transparent black first, as ISF hosts do.
   */
  ownVertex: z.boolean().optional(),
  samplers: z.array(z.object({
    name: z.string(),
    type: z.enum(["image", "audio", "audioFFT"]),
  })).optional(),
  passes: z.array(z.object({
    target: z.string().nullable(),
    persistent: z.boolean(),
    float: z.boolean(),
  })).max(ISF_MAX_PASSES).optional(),
  /** The same ES 1.00 code as GLSL ES 3.00, compiled when the GL refuses `source`. */
  fallback: z.object({ source: z.string(), vertex: z.string() }).optional(),
});
/** A fragment shader. */
export type ShaderProgram = z.infer<typeof ShaderProgram>;

/**
 * The most MIDI messages in one `midi-in` or `midi-send`: a page batches its ports' input
 * every 20 ms (`page/midi.js`), so 1,000 messages a second arrive as 50 page messages.
 */
export const MIDI_BATCH_MAX = 1024;
/** The most local MIDI ports of each direction a page lists. */
export const MIDI_PORTS_MAX = 256;

/**
 * Whether `data` is an MTC full frame, the one system exclusive a local port forwards:
 * `F0 7F <device> 01 01 hh mm ss ff F7`, data bytes under 0x80.
 */
export function isMtcFullFrame(data: readonly number[]): boolean {
  return data.length === 10 && data[0] === 0xf0 && data[1] === 0x7f && data[3] === 0x01 &&
    data[4] === 0x01 && data[9] === 0xf7 && data.slice(1, 9).every((b) => b < 0x80);
}

/**
 * One MIDI message of a local port (1 to 3 bytes, or an MTC full frame: the only system
 * exclusive taken) and the port's name; to the page, a null port sends to every output port.
 */
export const LocalMidiMessage = z.object({
  port: z.string().max(256),
  data: z.array(z.number().int().min(0).max(255)).min(1).max(10)
    .refine((d) => d.length <= 3 || isMtcFullFrame(d), "1 to 3 bytes, or an MTC full frame"),
});
/** One MIDI message of a local port. */
export type LocalMidiMessage = z.infer<typeof LocalMidiMessage>;

/** Player to page. */
export const ToPage = z.discriminatedUnion("type", [
  /** Programs to compile, and (`drop`) preset programs the page may delete. */
  z.object({
    type: z.literal("programs"),
    programs: z.array(ShaderProgram),
    drop: z.array(z.string()).optional(),
  }),
  z.object({ type: z.literal("state"), state: RenderState }),
  z.object({ type: z.literal("pong"), t0: z.number(), now: z.number() }),
  /**
   * Draw the newest state once every layer is ready, answer with a PNG; with `size` (the
   * longer side, px) or `format` `jpeg`, a picture of that size and format (a preview).
   */
  z.object({
    type: z.literal("frame"),
    id: z.number().int(),
    size: z.number().int().positive().optional(),
    format: z.enum(PICTURE_FORMATS).optional(),
    /** JPEG quality, 0 to 1. */
    quality: z.number().min(0).max(1).optional(),
  }),
  /**
   * Record the canvas and the master sound (MediaRecorder, WebM) and send it as binary frames,
   * in order, every half second; a recording still running in the page is stopped first.
   */
  z.object({ type: z.literal("record-start"), id: z.number().int() }),
  /** Stop recording: `recorded` answers once the last binary frame went out. */
  z.object({ type: z.literal("record-stop"), id: z.number().int() }),
  /** Measure the output's sound for `ms` milliseconds of page time. */
  z.object({ type: z.literal("level"), id: z.number().int(), ms: z.number() }),
  /**
   * The time a frame may take before the page draws at a lower scale (`render_scale.js`), ms;
   * null: the display's frame period. Sent when the page connects (tests send a tiny one).
   */
  z.object({ type: z.literal("scale"), frameBudgetMs: z.number().positive().nullable() }),
  /**
   * Whether the page opens the machine's MIDI ports (Web MIDI), sent when it connects: false
   * (setting midiLocal `off`) leaves them to other programs (a WinMM port has one user);
   * `ports` (midiLocal's names) opens and reads only the ports of those names, absent: every one.
   */
  z.object({
    type: z.literal("midi"),
    open: z.boolean(),
    ports: z.array(z.string().max(256)).max(MIDI_PORTS_MAX).optional(),
  }),
  /** Play MIDI messages on the output ports named (`port` null: every output port). */
  z.object({
    type: z.literal("midi-send"),
    messages: z.array(LocalMidiMessage.extend({ port: z.string().max(256).nullable() }))
      .max(MIDI_BATCH_MAX),
  }),
]);
/** Player to page. */
export type ToPage = z.infer<typeof ToPage>;

/**
 * The GL objects a page's context holds, by kind (`player/output/page/gl.js` counts its create
 * and delete calls): flat over a long night when nothing leaks.
 */
export const GlObjects = z.strictObject({
  programs: z.number().int(),
  shaders: z.number().int(),
  textures: z.number().int(),
  framebuffers: z.number().int(),
  renderbuffers: z.number().int(),
  buffers: z.number().int(),
  vertexArrays: z.number().int(),
});
/** The GL objects a page's context holds, by kind. */
export type GlObjects = z.infer<typeof GlObjects>;

/** Page to player (text frames; recording chunks come as binary frames). */
export const FromPage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello"), userAgent: z.string(), gl: z.string() }),
  z.object({ type: z.literal("ping"), t0: z.number() }),
  /** Every second: frames drawn and dropped, the newest state drawn, the worst drift. */
  z.object({
    type: z.literal("report"),
    seq: z.number().int(),
    frames: z.number().int(),
    dropped: z.number().int(),
    /** Player clock minus page clock, ms (the page's estimate). */
    offset: z.number(),
    /** Largest |video time - clock time| over the layers in the last second, ms. */
    driftMs: z.number(),
    /**
     * How far the frames drawn in the last second were from the player's clock (the group's show
     * time in a rig group), the mean of |lag|, ms (ahead and behind both count: a signed mean
     * would hide frames alternating); null with no frame (absent: an older page).
     */
    frameLagMs: z.number().nullable().optional(),
    /** The worst |lag| of those frames, ms; null with no frame (absent: an older page). */
    frameLagMaxMs: z.number().nullable().optional(),
    /**
     * How far the page's estimate of the player's clock, which those lags are measured against,
     * may be off: half the round trip of the ping it comes from, the worst of those frames', ms
     * (0 on a virtual clock); null with no frame or before the first pong (absent: an older page).
     */
    clockErrorMs: z.number().nullable().optional(),
    /** Page time (performance.now) of the first frame that drew each new state, per seq. */
    firstFrames: z.array(z.object({ seq: z.number().int(), clock: z.number() })),
    /** `visible`, or `hidden` (a minimized or covered window: the browser draws less). */
    visibility: z.string(),
    /** The scale the page draws at: 1 the display's size, lower while it cannot keep up. */
    renderScale: z.number().positive(),
    /** Why the scale is below 1 (the frames a second it drew), null at 1. */
    scaleReason: z.string().nullable(),
    /** The page's live GL objects by kind; null without WebGL2 (absent: an older page). */
    glObjects: GlObjects.nullable().optional(),
    /** ISF's FRAMEINDEX and TIMEDELTA (s) of the last frame drawn; null before any. */
    isf: z.object({ index: z.number().int(), timeDelta: z.number() }).nullable().optional(),
  }),
  /** `isComplete` false: a layer did not show its frame within 5 s (drawn as it was). */
  z.object({
    type: z.literal("frame"),
    id: z.number().int(),
    /** A data URL of the picture: PNG, or JPEG when asked. */
    png: z.string(),
    seq: z.number(),
    isComplete: z.boolean(),
    visibility: z.string(),
    /** The page's full-screen state: the window's, or the state's in headless. */
    fullScreen: z.boolean(),
  }),
  /**
   * The answer to `record-stop`, after the last chunk. The player counts the file's length from
   * its blocks (`webm_writer.ts`); `durationMs` (page time from start to stop) is informative.
   */
  z.object({
    type: z.literal("recorded"),
    id: z.number().int(),
    durationMs: z.number(),
    mimeType: z.string(),
  }),
  z.object({ type: z.literal("level"), id: z.number().int(), rms: z.number() }),
  /** A program did not compile or link in the page's GL context: its log (ANGLE's). */
  z.object({ type: z.literal("compile-error"), program: z.string(), log: z.string() }),
  /** A Clip's media cannot be shown (its card shows), or with `clipId` "" a shader failed. */
  z.object({ type: z.literal("fault"), clipId: z.string(), message: z.string() }),
  /** The page's WebGL2 context is lost (a GPU that fails): the player tries software GL. */
  z.object({ type: z.literal("gl-lost") }),
  /**
   * The MIDI ports of the machine as the page's Web MIDI lists them (names), said when the page
   * connects and at each change; `error` says why there are none (no Web MIDI, refused).
   */
  z.object({
    type: z.literal("midi-ports"),
    inputs: z.array(z.string().max(256)).max(MIDI_PORTS_MAX),
    outputs: z.array(z.string().max(256)).max(MIDI_PORTS_MAX),
    error: z.string().max(1024).nullable(),
  }),
  /** MIDI messages received on the input ports, in order (batched every 10 ms at most). */
  z.object({
    type: z.literal("midi-in"),
    messages: z.array(LocalMidiMessage).min(1).max(MIDI_BATCH_MAX),
  }),
]);
/** Page to player. */
export type FromPage = z.infer<typeof FromPage>;

/** The close code of an output page while another is connected (the first keeps the output). */
export const PAGE_TAKEN = 4002;

/**
 * The output page's socket bounds (`socket_bounds.ts`). The longest text is the `frame` answer,
 * a PNG data URL of the display-size picture: 32 Mi code units hold a 2560x1440 picture of
 * noise (14.7 MB of pixels, 19.7 MB as base64), and any real 4K one (a 3840x2160 picture of
 * pure noise, 44 MB as base64, is refused). The largest binary is a recording chunk, asked
 * every 500 ms (`record-start`), later on a busy machine: headless Chromium recording a
 * 1920x1080 canvas of noise (VP8 and Opus, its default bit rate) at load 24 on 2 cores sent
 * 465 KB in one chunk for 8 s; 8 MiB holds 25 s at 2.5 Mb/s. A page sends a report
 * and a ping a second, two chunks, and at load a fault or compile error per Clip or program:
 * 200 messages a second and bursts of 2000 are ten times that. Local MIDI input comes in
 * batches every 20 ms at most (`midi-in`): 50 messages a second however fast the ports play, a
 * quarter of `messagesPerSecond`, leaving 150 to the page's own; MIDI clock and active sensing
 * never reach the socket (the page drops them). A full batch (`MIDI_BATCH_MAX` messages of 3
 * bytes, port names of a few characters) is about 40 KB of JSON: 2 MB a second at 50 batches, an
 * eighth of `bytesPerSecond`.
 */
export const PAGE_SOCKET_BOUNDS: SocketBounds = {
  maxTextChars: 32 * 2 ** 20,
  maxBinaryBytes: 8 * 2 ** 20,
  messagesPerSecond: 200,
  burstMessages: 2000,
  bytesPerSecond: 16 * 2 ** 20,
  burstBytes: 64 * 2 ** 20,
};

/**
 * The editor page's own figures (it draws its preview in the output's browser, and its GL
 * compiles each program the edits make): what its last report said.
 */
export const EditorPageStats = z.strictObject({
  glObjects: GlObjects.nullable().describe(
    "The editor page's live GL objects by kind (null: the page has no WebGL2)",
  ),
  compileErrors: z.number().int().min(0).describe(
    "Programs the editor page's GL refused (did not compile or link) since it loaded",
  ),
});
/** The editor page's own figures. */
export type EditorPageStats = z.infer<typeof EditorPageStats>;

/**
 * How the output draws, as the player counts it (the `heartbeat` answer, `GET /health`): figures
 * of progress, not of speed, so a slow output is told from a stopped one.
 */
export const OutputStats = z.strictObject({
  framesDrawn: z.number().int().describe("Frames the pages drew since the player started"),
  framesPerSecond: z.number().describe("Frames drawn in the page's last report (about a second)"),
  renderScale: z.number().describe(
    "Scale the picture is drawn at: 1 is the display's size, lower while the machine cannot keep up",
  ),
  frameLagMs: z.number().nullable().optional().describe(
    "How far the output's frames were from the player's clock (its show time in a rig group) in the page's last report, the mean of |lag|, ms; null before one",
  ),
  frameLagMaxMs: z.number().nullable().optional().describe(
    "The worst |lag| of the frames in the page's last report, ms; null before one",
  ),
  browserStarts: z.number().int().describe("Browser launches, the first included"),
  pageLoads: z.number().int().describe("Times a page said hello (a browser start, a reload)"),
  glObjects: GlObjects.nullable().optional().describe(
    "The output page's live GL objects by kind, as its last report said (null: none yet)",
  ),
  editor: EditorPageStats.nullable().optional().describe(
    "The editor page's figures, as its last report said (null: no editor page reported yet)",
  ),
});
/** How the output draws. */
export type OutputStats = z.infer<typeof OutputStats>;

/**
 * Camera pictures for `camera.frame`: the synthetic test-pattern camera draws
 * colour bars, a bar that sweeps with the player's clock and the clock's
 * reading in seven-segment digits; a Linux video device is captured through
 * ffmpeg when it is on the machine. Each picture is written whole (a temp
 * file renamed over the last) under `<dataDir>/cache/cameras/`.
 * @module
 */
import { writeFileAtomic } from "../lib/atomic_write.ts";
import { RpcErrorCode } from "../protocol/jsonrpc.ts";
import type { CameraFrameResult } from "../protocol/methods.ts";
import type { Camera } from "../protocol/state.ts";
import { TEST_PATTERN_CAMERA } from "./cameras.ts";
import { Refusal } from "./errors.ts";
import { encodePng } from "./media/encode.ts";

/** Size of the test pattern: a 16:9 picture a thumbnail is made from. */
export const TEST_PATTERN_SIZE = { width: 640, height: 360 } as const;

/** A capture through ffmpeg that takes longer than this is stopped. */
const CAPTURE_DEADLINE_MS = 8_000;

/** Colour bars, left to right (75% bars). */
const BARS: ReadonlyArray<readonly [number, number, number]> = [
  [191, 191, 191],
  [191, 191, 0],
  [0, 191, 191],
  [0, 191, 0],
  [191, 0, 191],
  [191, 0, 0],
  [0, 0, 191],
];

/** Which of a digit's seven segments are lit (a, b, c, d, e, f, g). */
const SEGMENTS: Record<string, string> = {
  "0": "abcdef",
  "1": "bc",
  "2": "abdeg",
  "3": "abcdg",
  "4": "bcfg",
  "5": "acdfg",
  "6": "acdefg",
  "7": "abc",
  "8": "abcdefg",
  "9": "abcdfg",
};

/** An RGBA picture to draw on. */
export class Canvas {
  readonly rgba: Uint8Array;
  /** A black, transparent picture. */
  constructor(readonly width: number, readonly height: number) {
    this.rgba = new Uint8Array(width * height * 4);
  }

  /** Fills a rectangle with an opaque colour. */
  fill(x0: number, y0: number, w: number, h: number, [r, g, b]: readonly number[]): void {
    const x1 = Math.min(this.width, Math.round(x0 + w));
    const y1 = Math.min(this.height, Math.round(y0 + h));
    for (let y = Math.max(0, Math.round(y0)); y < y1; y++) {
      for (let x = Math.max(0, Math.round(x0)); x < x1; x++) {
        const i = (y * this.width + x) * 4;
        this.rgba[i] = r!;
        this.rgba[i + 1] = g!;
        this.rgba[i + 2] = b!;
        this.rgba[i + 3] = 255;
      }
    }
  }

  /** A seven-segment digit (or a colon) `h` high at (x, y); returns its advance. */
  glyph(ch: string, x: number, y: number, h: number, colour: readonly number[]): number {
    const w = h / 2;
    const t = Math.max(2, h / 9);
    if (ch === ":") {
      this.fill(x + t, y + h * 0.25, t, t, colour);
      this.fill(x + t, y + h * 0.7, t, t, colour);
      return t * 3;
    }
    const lit = SEGMENTS[ch] ?? "";
    const half = h / 2;
    const parts: Record<string, [number, number, number, number]> = {
      a: [x, y, w, t],
      b: [x + w - t, y, t, half],
      c: [x + w - t, y + half, t, half],
      d: [x, y + h - t, w, t],
      e: [x, y + half, t, half],
      f: [x, y, t, half],
      g: [x, y + half - t / 2, w, t],
    };
    for (const segment of lit) this.fill(...parts[segment]!, colour);
    return w + t * 2;
  }
}

/** `H:MM:SS` of a clock reading in ms. */
function clockText(ms: number): string {
  const s = Math.floor(ms / 1000);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}

/**
 * The test pattern at a clock reading (ms), as RGBA: colour bars, a white bar
 * sweeping across once every 10 s, and the reading as `H:MM:SS`.
 */
export function drawTestPattern(clockMs: number): Canvas {
  const { width, height } = TEST_PATTERN_SIZE;
  const canvas = new Canvas(width, height);
  const barsHeight = Math.round(height * 0.62);
  BARS.forEach((colour, i) => {
    const x0 = Math.round((i * width) / BARS.length);
    const x1 = Math.round(((i + 1) * width) / BARS.length);
    canvas.fill(x0, 0, x1 - x0, barsHeight, colour);
  });
  canvas.fill(0, barsHeight, width, height - barsHeight, [16, 16, 24]);
  const sweep = ((clockMs % 10_000) / 10_000) * (width - 24);
  canvas.fill(sweep, barsHeight, 24, 12, [255, 255, 255]);
  const text = clockText(clockMs);
  const digitHeight = Math.round((height - barsHeight) * 0.55);
  let x = width / 2 - (text.length * digitHeight * 0.7) / 2;
  const y = barsHeight + (height - barsHeight - digitHeight) / 2 + 6;
  for (const ch of text) x += canvas.glyph(ch, x, y, digitHeight, [240, 240, 240]) + 4;
  return canvas;
}

/** Takes camera pictures into `<dataDir>/cache/cameras/`. */
export class CameraFrames {
  #dir: string;
  #now: () => number;
  #ffmpeg: string | null;

  /**
   * `now` is the player's clock (the test pattern shows it); `ffmpeg` the
   * command that captures real devices, null when the setting is `off`.
   */
  constructor(dataDir: string, now: () => number, ffmpeg: string | null) {
    this.#dir = `${dataDir}/cache/cameras`;
    this.#now = now;
    this.#ffmpeg = ffmpeg;
  }

  /**
   * A picture from `camera`, written whole to its file.
   * @throws {Refusal} UNAVAILABLE when a device needs ffmpeg and there is none, ACTION_REFUSED when the capture fails
   */
  async capture(camera: Camera): Promise<CameraFrameResult> {
    const safeId = camera.deviceId.replace(/[^A-Za-z0-9_-]/g, "_");
    if (camera.deviceId === TEST_PATTERN_CAMERA.deviceId) {
      const canvas = drawTestPattern(this.#now());
      const path = `${this.#dir}/${safeId}.png`;
      await writeFileAtomic(path, encodePng(canvas.width, canvas.height, canvas.rgba), {
        skipFsync: true,
      });
      return { path, capturedAt: Date.now() };
    }
    return await this.#captureDevice(camera, `${this.#dir}/${safeId}.jpg`);
  }

  async #captureDevice(camera: Camera, path: string): Promise<CameraFrameResult> {
    if (this.#ffmpeg === null) {
      throw new Refusal(
        `Capturing camera "${camera.deviceId}" needs ffmpeg, and the ffmpeg setting is off`,
        RpcErrorCode.UNAVAILABLE,
      );
    }
    await Deno.mkdir(this.#dir, { recursive: true });
    const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp.jpg`;
    let output: Deno.CommandOutput;
    try {
      output = await new Deno.Command(this.#ffmpeg, {
        args: [
          ...["-hide_banner", "-loglevel", "error", "-f", "v4l2", "-i", `/dev/${camera.deviceId}`],
          ...["-frames:v", "1", "-vf", "scale='min(1280,iw)':-2", "-y", temp],
        ],
        stdin: "null",
        stdout: "null",
        stderr: "piped",
        signal: AbortSignal.timeout(CAPTURE_DEADLINE_MS),
      }).output();
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      if (error instanceof Deno.errors.NotFound) {
        throw new Refusal(
          `Capturing camera "${camera.deviceId}" needs ffmpeg, which is not installed ` +
            `(install it, or name it with the ffmpeg setting)`,
          RpcErrorCode.UNAVAILABLE,
        );
      }
      throw new Refusal(
        `Capturing camera "${camera.deviceId}" failed: ${(error as Error).message}`,
      );
    }
    if (!output.success) {
      await Deno.remove(temp).catch(() => {});
      const reason = new TextDecoder().decode(output.stderr).trim().split("\n").at(-1) ?? "";
      throw new Refusal(`Capturing camera "${camera.deviceId}" failed: ${reason.slice(0, 200)}`);
    }
    await Deno.rename(temp, path);
    return { path, capturedAt: Date.now() };
  }
}

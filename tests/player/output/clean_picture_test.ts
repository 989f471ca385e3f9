/**
 * A clean picture: the output's window on a real X screen (Xvfb), the player
 * running as root, shows nothing but the show. The whole screen is grabbed as
 * an operator would see it, pointer included (`ffmpeg -f x11grab
 * -draw_mouse 1`), with the pointer moved onto the window first (`xdotool`):
 * every pixel of the window's rectangle is the show's red, so no browser bar
 * (the `--no-sandbox` warning, "controlled by automated software"), no pointer,
 * no scroll bar, no focus ring. Once in a window, once in kiosk (`fullscreen`).
 */
import { ask } from "../../../tools/testing/devtools.ts";
import assert from "node:assert/strict";
import { needs } from "../../../tools/testing/peers.ts";
import {
  near,
  openOutputPlayer,
  type OutputPlayer,
  untilOutput,
} from "../../../tools/testing/output.ts";
import { decodePng, pixel, type Pixels } from "../../../tools/testing/images.ts";
import { pageAt } from "../../../player/output/devtools.ts";
import { startXvfb } from "../../../tools/testing/displays.ts";

const RED = [255, 0, 0];
const SCREEN = { width: 1280, height: 720 };
/** Where the pointer rests before the output opens: on any window at the top left corner. */
const POINTER = [320, 180] as const;

/** Runs `program` with `args` on `display`; its stdout, or an error with its stderr. */
async function run(program: string, args: string[], display: string): Promise<Uint8Array> {
  const out = await new Deno.Command(program, {
    args,
    env: { DISPLAY: display },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`${program}: ${new TextDecoder().decode(out.stderr)}`);
  return out.stdout;
}

/** The whole X screen as the operator sees it, the pointer drawn in. */
async function grabScreen(display: string): Promise<Pixels> {
  const args = ["-hide_banner", "-loglevel", "error", "-f", "x11grab", "-draw_mouse", "1"];
  const size = `${SCREEN.width}x${SCREEN.height}`;
  const out = ["-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-pix_fmt", "rgb24", "-"];
  const png = await run("ffmpeg", [...args, "-video_size", size, "-i", display, ...out], display);
  return decodePng(png);
}

interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The output page's window on the screen, as the browser places it. */
async function outputWindow(p: OutputPlayer): Promise<Rect> {
  const devtools = p.output.browserDevTools!;
  const { targetInfos } = await ask<{ targetInfos: { targetId: string; url: string }[] }>(
    devtools,
    "Target.getTargets",
  );
  const target = pageAt(targetInfos, p.output.url);
  assert(target, "the output page's target");
  const { bounds } = await ask<{ bounds: Rect }>(devtools, "Browser.getWindowForTarget", {
    targetId: target.targetId,
  });
  // Clipped to the screen: a window partly off it shows only its part on it.
  const left = Math.max(0, bounds.left), top = Math.max(0, bounds.top);
  const right = Math.min(SCREEN.width, bounds.left + bounds.width);
  const bottom = Math.min(SCREEN.height, bounds.top + bounds.height);
  return { left, top, width: right - left, height: bottom - top };
}

/** Whether the pixel at byte `i` of `rgba` is `near` the show's red, read in place. */
function isNearRed(rgba: Uint8Array, i: number): boolean {
  return Math.abs(rgba[i]! - RED[0]!) <= 12 && Math.abs(rgba[i + 1]! - RED[1]!) <= 12 &&
    Math.abs(rgba[i + 2]! - RED[2]!) <= 12;
}

/** The pixels of `rect` in `shot` that are not the show's red: how many, and where. */
function offRed(shot: Pixels, rect: Rect): { count: number; rows: number[]; first: string } {
  let count = 0, first = "";
  const rows = new Set<number>();
  const { rgba, width } = shot;
  // Indexed in place: a screen is a million pixels, read at each look.
  for (let y = rect.top; y < rect.top + rect.height; y++) {
    for (let x = rect.left, i = (y * width + x) * 4; x < rect.left + rect.width; x++, i += 4) {
      if (isNearRed(rgba, i)) continue;
      if (count++ === 0) first = `(${x}, ${y}) is ${pixel(shot, x, y).slice(0, 3)}`;
      rows.add(y);
    }
  }
  return { count, rows: [...rows], first };
}

/** Records the screen (no pointer) into PNGs of a quarter of its size, until `stop`. */
function recordScreen(display: string, dir: string): { stop(): Promise<void> } {
  const child = new Deno.Command("ffmpeg", {
    args: [
      ...["-hide_banner", "-loglevel", "error", "-f", "x11grab", "-draw_mouse", "0"],
      ...["-framerate", "10", "-video_size", `${SCREEN.width}x${SCREEN.height}`, "-i", display],
      ...["-vf", "scale=320:180", `${dir}/%05d.png`],
    ],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let stopped: Promise<void> | null = null;
  const stop = async () => {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("q")).catch(() => {});
    await writer.close().catch(() => {});
    await child.status;
  };
  return { stop: () => stopped ??= stop() };
}

/**
 * The first recorded frame, in order, with a light pixel (a browser page, a bar: each channel
 * above 96), as "<frame> (x, y) r,g,b"; null when the screen was only black and the show's red.
 */
async function firstLight(dir: string): Promise<string | null> {
  const names = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".png"));
  for (const name of names.sort()) {
    const frame = decodePng(await Deno.readFile(`${dir}/${name}`));
    const { rgba } = frame;
    for (let i = 0; i < rgba.length; i += 4) {
      if (rgba[i]! > 96 && rgba[i + 1]! > 96 && rgba[i + 2]! > 96) {
        const [x, y] = [(i / 4) % frame.width, Math.floor(i / 4 / frame.width)];
        return `${name} (${x * 4}, ${y * 4}) ${pixel(frame, x, y).slice(0, 3)}`;
      }
    }
  }
  return null;
}

/**
 * Runs `body` on a player (this process: root here) whose output is in `mode` on a fresh Xvfb,
 * the pointer resting at `POINTER` before the window opens, the screen recorded (`recording`)
 * while the output starts: `stopRecording` ends it and says the first light frame.
 */
async function onXvfb(
  mode: "window" | "fullscreen",
  body: (
    p: OutputPlayer,
    display: string,
    stopRecording: () => Promise<string | null>,
  ) => Promise<void>,
): Promise<void> {
  const xvfb = await startXvfb(`${SCREEN.width}x${SCREEN.height}x24`);
  const previous = Deno.env.get("DISPLAY");
  Deno.env.set("DISPLAY", xvfb.display);
  const dir = await Deno.makeTempDir({ prefix: "cueport-clean-" });
  await run("xdotool", ["mousemove", ...POINTER.map(String)], xvfb.display);
  const recording = recordScreen(xvfb.display, dir);
  const p = await openOutputPlayer({ mode });
  const stopRecording = async () => {
    await recording.stop();
    return await firstLight(dir);
  };
  try {
    await body(p, xvfb.display, stopRecording);
  } catch (error) {
    throw new Error(`${error}; the player said: ${p.logs.join("\n")}`);
  } finally {
    await recording.stop();
    await p.close();
    if (previous === undefined) Deno.env.delete("DISPLAY");
    else Deno.env.set("DISPLAY", previous);
    await xvfb.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Waits until `rect` shows only red or the page drew ten more frames; what is not red then. */
async function offRedAfterFrames(p: OutputPlayer, display: string, rect: Rect): Promise<string> {
  const drawn = p.output.stats.framesDrawn;
  let shot = await grabScreen(display);
  await untilOutput(p.output, "a clean window or ten frames", async () => {
    shot = await grabScreen(display);
    return offRed(shot, rect).count === 0 || p.output.stats.framesDrawn >= drawn + 10;
  });
  const off = offRed(shot, rect);
  if (off.count === 0) return "";
  return `${off.count} pixels, rows ${off.rows[0]}-${off.rows.at(-1)}, first ${off.first}`;
}

/**
 * Plays red: from its first paint the window was black or red; it is red throughout with the
 * pointer resting on it since before it opened, and again after the pointer moved on it.
 */
async function showsOnlyRed(
  p: OutputPlayer,
  display: string,
  stopRecording: () => Promise<string | null>,
): Promise<void> {
  await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
  await untilOutput(p.output, "the red show on the page", async () => near(await p.centre(), RED));
  const rect = await outputWindow(p);
  const [px, py] = POINTER;
  const isUnder = px >= rect.left && px < rect.left + rect.width && py >= rect.top &&
    py < rect.top + rect.height;
  assert(isUnder, `the pointer ${POINTER} is on the window ${JSON.stringify(rect)}`);
  // At the middle of its bottom, where neither a bar nor the pointer is: the show is on the
  // screen (a bar above would shrink the picture, never from there).
  const [cx, cy] = [rect.left + (rect.width >> 1), rect.top + rect.height - 4];
  await untilOutput(p.output, "the red show on the screen", async () => {
    return near(pixel(await grabScreen(display), cx, cy).slice(0, 3), RED);
  });
  assert.equal(await stopRecording(), null, "a light frame while the output started");
  assert.equal(await offRedAfterFrames(p, display, rect), "", "not the show, pointer resting");
  const [mx, my] = [rect.left + (rect.width >> 1), rect.top + (rect.height >> 1)];
  await run("xdotool", ["mousemove", String(mx), String(my)], display);
  assert.equal(await offRedAfterFrames(p, display, rect), "", "not the show, pointer moved");
}

Deno.test({
  ...needs("chromium", "ffmpeg", "Xvfb", "xdotool"),
  name: "Output in a window, as root: black until the show, then nothing but the show",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => onXvfb("window", showsOnlyRed),
});

Deno.test({
  ...needs("chromium", "ffmpeg", "Xvfb", "xdotool"),
  name: "Output in kiosk (fullscreen), as root: black until the show, then nothing but the show",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => onXvfb("fullscreen", showsOnlyRed),
});

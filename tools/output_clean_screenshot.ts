/**
 * The picture of `docs/output.md`, "A clean picture": the output window as
 * the operator sees it. Run as root
 * (`deno run -A tools/output_clean_screenshot.ts`): Xvfb at 1940x1100 (the
 * demo's 1920x1080 window and a margin), the pointer resting on the middle
 * of where the window opens, a player on the demo show (a fresh data dir)
 * with its output in a window, the Aurora playing; once the page drew 60
 * frames, the whole X screen, pointer included, grabbed with
 * `ffmpeg -f x11grab -draw_mouse 1` into `docs/output-clean.png`.
 * @module
 */
import { PlayerApp } from "../player/app.ts";
import { MonotonicClock } from "../player/clock.ts";
import type { NormalizedAction } from "../protocol/actions.ts";
import { CHROMIUM } from "./testing/browser.ts";

const OUT = new URL("../docs/output-clean.png", import.meta.url).pathname;

/** Runs `program` on `display`; its stdout. */
async function run(program: string, args: string[], display: string): Promise<Uint8Array> {
  const out = await new Deno.Command(program, { args, env: { DISPLAY: display }, stdout: "piped" })
    .output();
  if (!out.success) throw new Error(`${program} failed`);
  return out.stdout;
}

const xvfb = new Deno.Command("Xvfb", {
  args: ["-displayfd", "1", "-screen", "0", "1940x1100x24", "-nolisten", "tcp", "-noreset"],
  stdout: "piped",
  stderr: "null",
}).spawn();
const reader = xvfb.stdout.pipeThrough(new TextDecoderStream()).getReader();
let said = "";
while (!said.includes("\n")) said += (await reader.read()).value ?? "";
const display = `:${said.trim()}`;
Deno.env.set("DISPLAY", display);
await run("xdotool", ["mousemove", "960", "540"], display);
const dataDir = await Deno.makeTempDir({ prefix: "cueport-clean-docs-" });
const app = await PlayerApp.open({
  dataDir,
  clock: new MonotonicClock(),
  output: { mode: "window", browser: CHROMIUM },
  log: (level, message) => level !== "info" && console.error(`${level}: ${message}`),
});
const action = (name: string) => ({ name, params: {}, projectId: null }) as NormalizedAction;
try {
  if (!app.output) throw new Error("No output: is Chromium installed?");
  await app.runAction({ ...action("TRIGGER_CLIP_IN"), params: { clipID: "clip-aurora" } });
  // A few seconds of frames drawn: the window shows the show, not its start.
  while (app.output.stats.framesDrawn < 60) await new Promise((r) => setTimeout(r, 200));
  const png = await run("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-f", "x11grab", "-draw_mouse", "1"],
    ...["-video_size", "1940x1100", "-i", display, "-frames:v", "1", "-f", "image2pipe"],
    ...["-c:v", "png", "-"],
  ], display);
  await Deno.writeFile(OUT, png);
  console.log(`docs/output-clean.png: ${png.length} bytes`);
} finally {
  await app.close();
  await Deno.remove(dataDir, { recursive: true });
  xvfb.kill("SIGTERM");
  await reader.cancel().catch(() => {});
  await xvfb.status;
}

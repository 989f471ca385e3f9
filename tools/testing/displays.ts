/**
 * Two displays on one Xvfb for the tests: one X screen of 2560x720 that `xrandr --setmonitor`
 * splits into RandR monitors. Xvfb runs with `-noreset`: without it the server resets when its
 * last client (xrandr itself) leaves, and forgets the monitors. Chromium's own display list does
 * not see them (it reads RandR outputs; Xvfb has one), `xrandr --listmonitors` does.
 */

/** Runs `xrandr` on `display`; fails with what it said. */
export async function xrandr(display: string, ...args: string[]): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command("xrandr", {
    args: ["-display", display, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(success ? stdout : stderr);
  if (!success) throw new Error(`xrandr ${args.join(" ")}: ${text}`);
  return text;
}

/**
 * Xvfb with one screen of `size` (`WxHxD`), on a display number it picks (`-displayfd`: it
 * says which once ready), kept from resetting when its last client leaves (`-noreset`).
 */
export async function startXvfb(
  size = "1280x720x24",
): Promise<{ display: string; stop(): Promise<void> }> {
  const child = new Deno.Command("Xvfb", {
    args: ["-displayfd", "1", "-screen", "0", size, "-nolisten", "tcp", "-noreset"],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("Xvfb exited before it had a display");
    text += value;
  }
  return {
    display: `:${text.trim()}`,
    async stop() {
      child.kill("SIGTERM");
      await reader.cancel().catch(() => {});
      await child.status;
    },
  };
}

/** Xvfb, 2560x720: room for two 1280x720 monitors (`addMonitor`). */
export function startWideXvfb(): Promise<{ display: string; stop(): Promise<void> }> {
  return startXvfb("2560x720x24");
}

/** The monitor `name` at `left`, 1280x720, on `output` (`none`: a monitor of its own). */
export function addMonitor(
  display: string,
  name: string,
  left: number,
  output = "none",
): Promise<string> {
  return xrandr(display, "--setmonitor", name, `1280/338x720/190+${left}+0`, output);
}

/** The X screen's picture in the rectangle at `left`,`top` (ffmpeg's x11grab), as a PNG. */
export async function grabScreen(
  display: string,
  rect: { left: number; top: number; width: number; height: number },
): Promise<Uint8Array> {
  const { success, stdout, stderr } = await new Deno.Command("ffmpeg", {
    args: [
      ...["-loglevel", "error", "-f", "x11grab"],
      ...["-video_size", `${rect.width}x${rect.height}`],
      ...["-i", `${display}+${rect.left},${rect.top}`],
      ...["-frames:v", "1", "-f", "image2", "-c:v", "png", "pipe:1"],
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`ffmpeg x11grab: ${new TextDecoder().decode(stderr)}`);
  return stdout;
}

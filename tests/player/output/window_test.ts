/**
 * The output in a real window (Chromium under Xvfb, a virtual X display):
 * FULLSCREEN_TOGGLE puts the browser's window in full screen and back
 * through DevTools, and the page keeps drawing.
 */
import assert from "node:assert/strict";
import { needs } from "../../_helpers/peers.ts";
import { near, openOutputPlayer } from "../../_helpers/output.ts";
import { until } from "../../_helpers/until.ts";

/** Starts Xvfb on a free display number; returns it and how to stop it. */
async function startXvfb(): Promise<{ display: string; stop(): Promise<void> }> {
  for (let n = 90 + Math.floor(Math.random() * 400);; n++) {
    const child = new Deno.Command("Xvfb", {
      args: [`:${n}`, "-screen", "0", "1280x720x24", "-nolisten", "tcp"],
      stdout: "null",
      stderr: "null",
    }).spawn();
    let hasExited = false;
    child.status.then(() => (hasExited = true));
    await until("Xvfb", async () => {
      if (hasExited) return true;
      return await Deno.stat(`/tmp/.X11-unix/X${n}`).then(() => true, () => false);
    });
    if (hasExited) continue; // the display number is taken
    return {
      display: `:${n}`,
      async stop() {
        child.kill("SIGTERM");
        await child.status;
      },
    };
  }
}

Deno.test({
  ...needs("chromium", "ffmpeg", "Xvfb"),
  name: "Output in a window: FULLSCREEN_TOGGLE sets the window's state",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const xvfb = await startXvfb();
    const previous = Deno.env.get("DISPLAY");
    Deno.env.set("DISPLAY", xvfb.display);
    const p = await openOutputPlayer({ mode: "window" });
    try {
      await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
      const first = await p.centre();
      assert(near(first, [255, 0, 0]), `centre ${first}`);
      assert.equal(await p.output.windowState(), "normal");
      await p.run("FULLSCREEN_TOGGLE");
      assert.equal(await p.output.windowState(), "fullscreen");
      const full = await p.centre();
      assert(near(full, [255, 0, 0]), `centre in full screen ${full}`);
      await p.run("FULLSCREEN_TOGGLE");
      assert.equal(await p.output.windowState(), "normal");
      await p.run("STOP_IN");
      const last = await p.centre();
      assert(near(last, [0, 255, 0]), `the page still draws: ${last}`);
    } catch (error) {
      throw new Error(`${error}; the player said: ${p.logs.join("\n")}`);
    } finally {
      await p.close();
      if (previous === undefined) Deno.env.delete("DISPLAY");
      else Deno.env.set("DISPLAY", previous);
      await xvfb.stop();
    }
  },
});

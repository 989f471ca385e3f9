/**
 * The output in a real window (Chromium under Xvfb, a virtual X display):
 * FULLSCREEN_TOGGLE puts the browser's window in full screen and back
 * through DevTools, a browser started again after a crash comes back full
 * screen, and the page keeps drawing. The editor window open beside it
 * (its page shares the output page's path) stays a normal window.
 */
import assert from "node:assert/strict";
import { needs } from "../../_helpers/peers.ts";
import { near, openOutputPlayer } from "../../_helpers/output.ts";
import { until } from "../../_helpers/until.ts";
import { DevTools } from "../../../player/output/devtools.ts";

/** Starts Xvfb on a display number it picks itself (`-displayfd`: it says which once ready). */
async function startXvfb(): Promise<{ display: string; stop(): Promise<void> }> {
  const child = new Deno.Command("Xvfb", {
    args: ["-displayfd", "1", "-screen", "0", "1280x720x24", "-nolisten", "tcp"],
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
      await p.run("OPEN_EDITOR", { kind: "effect", presetID: "fx-blur" });
      await until("the editor window", () => p.app.appState.editor?.shown === true);
      await p.run("FULLSCREEN_TOGGLE");
      assert.equal(await p.output.windowState(), "fullscreen");
      const devtools = await DevTools.connect(p.output.browserProfileDir!);
      try {
        assert.equal(await devtools.windowState(p.output.editorUrl), "normal", "the editor's");
      } finally {
        devtools.close();
      }
      const full = await p.centre();
      assert(near(full, [255, 0, 0]), `centre in full screen ${full}`);
      // A crashed browser comes back full screen: the flag is the show's, not the window's.
      const pid = p.output.browserPid!;
      const loads = p.output.pageLoads;
      Deno.kill(pid, "SIGKILL");
      await until("the page of the new browser", () => p.output.pageLoads > loads);
      // The new browser may itself be replaced (software GL when its GPU gives no WebGL2), so
      // the window is asked until the browser that stays is full screen.
      await until("the new browser's window in full screen", async () => {
        return await p.output.windowState().catch(() => "gone") === "fullscreen";
      });
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

/**
 * The output's sockets from a local program's side, with the real output (headless Chromium):
 * a plain WebSocket client with the page's Origin and no secret, or a guessed one, is refused
 * at the upgrade, whatever it sends (a forged `gl-lost`, 3000 garbage frames); the browser is
 * never started again, its page stays connected, the recording it started goes on, and the
 * log says so in one line.
 */
import assert from "node:assert/strict";
import { needs } from "../../../tools/testing/peers.ts";
import { openOutputPlayer, untilOutput } from "../../../tools/testing/output.ts";
import { openClient } from "./_socket_client.ts";

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "Output: a local program without the secret restarts nothing and ends no recording",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const p = await openOutputPlayer();
    try {
      await untilOutput(p.output, "the page's hello", () => p.output.stats.pageLoads >= 1);
      await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
      await p.run("RECORD_TOGGLE", { mode: "now" });
      await untilOutput(
        p.output,
        "a recorded frame",
        () => p.app.appState.recording.videoFrames > 0,
      );
      const origin = new URL(p.output.url).origin;
      const before = p.logs.length;
      const opened: boolean[] = [];
      for (const secret of [undefined, "0".repeat(64)]) {
        const stranger = await openClient(`${p.output.url}ws`, { origin, secret });
        // Whatever it could send had it got in (it did before issue 40).
        if (stranger.isOpen) {
          stranger.socket.send(JSON.stringify({ type: "gl-lost" }));
          for (let i = 0; i < 3000; i++) stranger.socket.send(`garbage ${i}`);
          stranger.socket.close();
        }
        await stranger.closed;
        opened.push(stranger.isOpen);
      }
      // The page still answers, the same page of the same browser.
      await p.output.frame();
      const recorded = p.app.appState.recording.videoFrames;
      await untilOutput(
        p.output,
        "the recording to go on",
        // or to end (it did before issue 40): said by the assertions below, not waited for
        () =>
          p.app.appState.recording.videoFrames > recorded ||
          p.app.appState.recording.state !== "recording",
      );
      assert.equal(p.output.stats.browserStarts, 1);
      assert.equal(p.output.stats.pageLoads, 1);
      assert.deepEqual(opened, [false, false], "refused, with no secret and with a guess");
      assert.equal(p.app.appState.recording.state, "recording");
      const lines = p.logs.slice(before);
      assert.ok(lines.length <= 1, lines.join("\n"));
      await p.run("RECORD_TOGGLE", { mode: "now" });
      assert.equal(p.app.appState.recording.error, null);
    } finally {
      await p.close();
    }
  },
});

Deno.test({
  ...needs("chromium"),
  name: "Output: a local program cannot take the editor from its page",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const p = await openOutputPlayer();
    try {
      await p.run("OPEN_EDITOR", { kind: "effect", presetID: "fx-blur" });
      await untilOutput(
        p.output,
        "the editor to show",
        () => p.app.appState.editor?.shown === true,
      );
      const origin = new URL(p.output.url).origin;
      const stranger = await openClient(`${p.output.url}editor-ws`, { origin });
      if (stranger.isOpen) stranger.socket.send(JSON.stringify({ type: "hello", gl: "webgl2" }));
      stranger.socket.close();
      await stranger.closed;
      // The editor's page still has it: the next state reaches it (its preview draws it).
      await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
      await p.output.frame();
      assert.equal(stranger.isOpen, false, "refused");
      assert.equal(p.app.appState.editor?.shown, true);
      assert.equal(p.output.stats.browserStarts, 1);
    } finally {
      await p.close();
    }
  },
});

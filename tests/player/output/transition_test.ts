/**
 * A transition drawn by the real output: a red Clip replaced by a blue one through a dissolve
 * of 2 s reads red at progress 0, half and half at 0.5 (about (128, 0, 128)) and blue once it
 * ended. One player in this process on a virtual clock with a headless output: one browser.
 */
import assert from "node:assert/strict";
import { encodePng } from "../../../lib/png.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { H, near, openOutputPlayer, W } from "../../../tools/testing/output.ts";

/** A blue still, imported into the output test Project as a Clip after "red" in its Song. */
async function addBlueClip(app: Awaited<ReturnType<typeof openOutputPlayer>>["app"]) {
  const dir = await Deno.makeTempDir({ prefix: "cueport-transition-" });
  const rgba = new Uint8Array(W * H * 4);
  for (let i = 0; i < W * H; i++) rgba.set([0, 0, 255, 255], i * 4);
  await Deno.writeFile(`${dir}/blue.png`, encodePng(W, H, rgba));
  const imported = await app.applyEdits({
    projectId: null,
    edits: [{ name: "file.import", params: { path: `${dir}/blue.png` } }],
  });
  const fileId = imported.edits[0]!.created!.fileId!;
  await app.applyEdits({
    projectId: null,
    edits: [{ name: "clip.add", params: { songID: "song", position: 1, fileId, name: "blue" } }],
  });
  await Deno.remove(dir, { recursive: true });
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "a red Clip dissolving into a blue one over 2 s reads half and half at 1 s",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const p = await openOutputPlayer();
    try {
      await addBlueClip(p.app);
      await p.app.applyEdits({
        projectId: null,
        edits: [{
          name: "project.set_transition",
          params: { transition: { presetId: "tr-dissolve", duration: 2 } },
        }],
      });
      await p.run("PLAY_CLIP_IN", { clipID: "red" });
      assert(near(await p.centre(), [255, 0, 0]), "red before");
      await p.run("NEXT_CLIP_IN");
      const start = await p.centre();
      assert(near(start, [255, 0, 0], 16), `progress 0 shows the outgoing red: ${start}`);
      p.advance(1000);
      const half = await p.centre();
      assert(near(half, [128, 0, 128], 16), `progress 0.5 is half and half: ${half}`);
      p.advance(1000);
      const end = await p.centre();
      assert(near(end, [0, 0, 255]), `progress 1 shows the incoming blue alone: ${end}`);
      assert.ok(!p.logs.some((l) => l.startsWith("error")), p.logs.join("\n"));
    } finally {
      await p.close();
    }
  },
});

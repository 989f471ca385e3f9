/**
 * A wide stage's region drawn by the real output (`docs/output.md`, "Wide stages"): a still
 * red on its left half and blue on its right, shown with region `0.5,0,0.5,1`, reads blue in
 * every pixel of a canvas half as wide; with a left blend edge of 0.2 its left border is dark
 * and rises to full across the edge as the present program's curve says; a recording holds the
 * region at its size; `full` is the picture as before. One player in this process on a virtual
 * clock with a headless output: one browser.
 */
import assert from "node:assert/strict";
import { needs } from "../../../tools/testing/peers.ts";
import { pixel, type Pixels } from "../../../tools/testing/images.ts";
import { H, near, openOutputPlayer, untilOutput, W } from "../../../tools/testing/output.ts";
import { edgeFactor } from "../../../player/output/page/region.js";
import { DEFAULT_BLEND_GAMMA } from "../../../protocol/region.ts";

/** The blue channel of row `y`, left to right. */
function blueRow(p: Pixels, y: number): number[] {
  return Array.from({ length: p.width }, (_, x) => pixel(p, x, y)[2]!);
}

/** The pixels of `p` that are not blue within `tolerance`, as `x,y=r,g,b` (the first 5). */
function notBlue(p: Pixels, tolerance = 12): string[] {
  const found: string[] = [];
  for (let y = 0; y < p.height; y++) {
    for (let x = 0; x < p.width; x++) {
      const rgb = pixel(p, x, y).slice(0, 3);
      if (!near(rgb, [0, 0, 255], tolerance)) found.push(`${x},${y}=${rgb}`);
    }
  }
  return found.slice(0, 5);
}

/** The size of the first video frame of a WebM, `width,height`, as ffprobe decodes it. */
async function firstFrameSize(path: string): Promise<string> {
  const out = await new Deno.Command("ffprobe", {
    args: ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=width,height"]
      .concat(["-read_intervals", "%+#1", "-of", "csv=p=0", path]),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim().split("\n")[0]!;
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "OUTPUT_REGION: the output shows its region of the canvas with its blend edges",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const p = await openOutputPlayer();
    try {
      await p.run("TRIGGER_CLIP_IN", { clipID: "quad-plain" });
      const full = async (what: string) => {
        const picture = await p.frame();
        assert.deepEqual([picture.width, picture.height], [W, H], what);
        const left = pixel(picture, W / 4, H / 2).slice(0, 3);
        const right = pixel(picture, (3 * W) / 4, H / 2).slice(0, 3);
        assert(near(left, [255, 0, 0]) && near(right, [0, 0, 255]), `${what}: ${left} ${right}`);
      };
      await t.step("full: the whole canvas, as before", () => full("before any region"));

      await t.step("the right half: blue in every pixel of a half-wide canvas", async () => {
        await p.run("OUTPUT_REGION", { region: "0.5,0,0.5,1" });
        const picture = await p.frame();
        assert.deepEqual([picture.width, picture.height], [W / 2, H]);
        assert.deepEqual(notBlue(picture), []);
      });

      await t.step("a left edge of 0.2: dark at the border, full across it", async () => {
        await p.run("OUTPUT_REGION", { region: "0.5,0,0.5,1;left=0.2" });
        const picture = await p.frame();
        const row = blueRow(picture, H / 2);
        const edge = 0.2 * picture.width; // 16 pixels
        assert.ok(row[0]! < 40, `the border is dark: ${row.slice(0, 20)}`);
        for (let x = 0; x < picture.width; x++) {
          const want = 255 * edgeFactor((x + 0.5) / picture.width, 0.2, DEFAULT_BLEND_GAMMA);
          assert.ok(Math.abs(row[x]! - want) <= 8, `x ${x}: ${row[x]}, want ${want.toFixed(1)}`);
          if (x > 0 && x < edge) assert.ok(row[x]! >= row[x - 1]!, `rises: ${row.slice(0, 20)}`);
        }
        assert.ok(row[Math.ceil(edge)]! >= 250, `full past the edge: ${row.slice(0, 20)}`);
      });

      await t.step("a top edge is at the top of the picture", async () => {
        await p.run("OUTPUT_REGION", { region: "0.5,0,0.5,1;top=0.2" });
        const picture = await p.frame();
        const top = pixel(picture, W / 4, 0)[2]!, bottom = pixel(picture, W / 4, H - 1)[2]!;
        assert.ok(top < 40 && bottom > 245, `top ${top}, bottom ${bottom}`);
      });

      await t.step("a recording holds what the output shows: the region, at its size", async () => {
        await p.run("OUTPUT_REGION", { region: "0.5,0,0.5,1;left=0.2" });
        await p.run("RECORD_TOGGLE", { mode: "now" });
        const recording = () => p.app.appState.recording;
        await untilOutput(p.output, "frames recorded", () => recording().videoFrames >= 3);
        await p.run("RECORD_TOGGLE", { mode: "now" });
        assert.equal(recording().error, null);
        const size = await firstFrameSize(`${p.dataDir}/${recording().file}`);
        assert.equal(size, `${W / 2},${H}`);
      });

      await t.step("full again: the picture as before", async () => {
        await p.run("OUTPUT_REGION", { region: "full" });
        assert.equal(p.app.appState.outputRegion?.width, 1);
        await full("back to full");
      });
      assert.ok(!p.logs.some((l) => l.startsWith("error")), p.logs.join("\n"));
    } finally {
      await p.close();
    }
  },
});

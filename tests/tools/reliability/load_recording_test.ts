import assert from "node:assert/strict";
import { fileNamed, videoFramesOf } from "../../../tools/reliability/_load_recording.ts";
import { findPeer } from "../../../tools/peers.ts";
import { needs } from "../../../tools/testing/peers.ts";

Deno.test("fileNamed() takes the recording's file from the action's message", () => {
  assert.equal(
    fileNamed("Recording started: recordings/recording-2026-11-29T06-22-47-716Z.webm"),
    "recordings/recording-2026-11-29T06-22-47-716Z.webm",
  );
  assert.equal(fileNamed("Recording armed"), null);
  assert.equal(fileNamed(undefined), null);
});

Deno.test({
  ...needs("ffmpeg"),
  name:
    "videoFramesOf() counts the video frames ffprobe decodes, and says why an empty file has none",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "cueport-load-recording-" });
    try {
      const webm = `${dir}/ten.webm`;
      const made = await new Deno.Command(findPeer("ffmpeg")!, {
        args: [
          ...["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x36:rate=10", "-frames:v", "10"],
          ...["-c:v", "libvpx", "-y", webm],
        ],
      }).output();
      assert.ok(made.success, new TextDecoder().decode(made.stderr));
      assert.deepEqual(await videoFramesOf(webm), { videoFrames: 10 });
      await Deno.writeFile(`${dir}/empty.webm`, new Uint8Array());
      const empty = await videoFramesOf(`${dir}/empty.webm`);
      assert.ok("error" in empty);
      assert.match(empty.error, /empty\.webm: .*(Invalid data|EBML)/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

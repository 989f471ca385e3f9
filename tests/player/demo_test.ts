import assert from "node:assert/strict";
import { ProjectStore } from "../../player/store.ts";
import { needs } from "../../tools/testing/peers.ts";

Deno.test("ProjectStore.loadProjects() creates the demo project with real, measured media on an empty data dir", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { projects } = await new ProjectStore(dir).loadProjects();
    const demo = projects[0]!;
    assert.equal(demo.id, "demo");
    assert.ok(demo.songs.length >= 3);
    for (const song of demo.songs) {
      assert.ok(song.clips.length >= 3, `${song.id} has several Clips`);
      assert.ok(song.audioFileId);
      assert.ok(song.lyrics.length > 0);
    }
    assert.ok(demo.clips.some((c) => c.launchMode === "Gate"));
    assert.ok(demo.songs.some((s) => s.timeline.length > 0));
    assert.equal(demo.backgroundClips.length, 1);
    assert.ok(!demo.songs.some((s) => s.clips.includes(demo.backgroundClips[0]!)));
    for (const file of demo.files) {
      assert.equal((await Deno.stat(`${dir}/projects/demo/${file.path}`)).size, file.size);
    }
    const audio = demo.files.find((f) => f.kind === "audio")!;
    assert.ok(audio.duration! >= 20);
    for (const id of demo.songs.flatMap((s) => s.clips)) assert.match(id, /^[A-Za-z0-9_-]+$/);
    const again = await new ProjectStore(dir).loadProjects();
    assert.deepEqual(again.projects, projects, "ids and content are stable across starts");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** What ffprobe (a decoder apart from the service's `probeMedia`) reads of a file. */
async function ffprobe(path: string) {
  const out = await new Deno.Command("ffprobe", {
    args: ["-v", "error", "-show_entries", "format=duration:stream=codec_type,width,height"]
      .concat(["-of", "json", path]),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const json = JSON.parse(new TextDecoder().decode(out.stdout) || "{}");
  assert.ok(json.format, `ffprobe cannot read ${path}: ${new TextDecoder().decode(out.stderr)}`);
  const streams = json.streams as { codec_type: string; width?: number; height?: number }[];
  const video = streams.find((s) => s.codec_type === "video");
  return {
    audioOnly: streams.length > 0 && streams.every((s) => s.codec_type === "audio"),
    width: video?.width ?? null,
    height: video?.height ?? null,
    duration: json.format.duration === undefined ? null : Number(json.format.duration),
  };
}

// ffprobe comes in Debian's ffmpeg package, the peer named here.
Deno.test({
  ...needs("ffmpeg"),
  name: "the demo project's media fields match what ffprobe reads of each file",
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      const { projects } = await new ProjectStore(dir).loadProjects();
      const files = projects[0]!.files;
      assert.ok(files.some((f) => f.kind === "audio") && files.some((f) => f.kind === "image"));
      for (const file of files) {
        const read = await ffprobe(`${dir}/projects/demo/${file.path}`);
        if (file.kind === "audio") {
          assert.ok(read.audioOnly, file.path);
          assert.ok(Math.abs(read.duration! - file.duration!) < 0.01, `${file.path} duration`);
        } else {
          assert.equal(file.kind, "image", file.path);
          assert.equal(file.duration, null, file.path);
        }
        assert.deepEqual([file.width, file.height], [read.width, read.height], file.path);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

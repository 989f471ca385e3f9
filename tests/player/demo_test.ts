import assert from "node:assert/strict";
import { ProjectStore } from "../../player/store.ts";
import { fileSource, probeMedia } from "../../player/media/probe.ts";

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
      const src = await fileSource(`${dir}/projects/demo/${file.path}`);
      try {
        const measured = await probeMedia(src);
        assert.equal(src.size, file.size);
        assert.deepEqual([measured.kind, measured.duration, measured.width], [
          file.kind,
          file.duration,
          file.width,
        ]);
      } finally {
        src.close();
      }
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

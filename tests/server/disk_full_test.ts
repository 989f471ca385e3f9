import assert from "node:assert/strict";
import { encodeWav } from "../../player/media/encode.ts";
import { writeJsonAtomic } from "../../lib/atomic_write.ts";
import { fixtureProject } from "../../tools/testing/fixture.ts";
import { startTestService } from "../../tools/testing/service.ts";
import { mountTmpfs } from "../../tools/testing/tmpfs.ts";

Deno.test("A full data dir disk: edits, presets and imports answer 507 DISK_FULL, nothing half kept", async () => {
  const disk = await mountTmpfs("2m");
  const media = await Deno.makeTempDir({ prefix: "cueport-media-" });
  try {
    await writeJsonAtomic(`${disk.dir}/projects/show/project.json`, fixtureProject());
    // The media folder is there: the import's copy is what fills the disk.
    await Deno.mkdir(`${disk.dir}/projects/show/media`);
    const svc = await startTestService({}, { dataDir: disk.dir });
    try {
      const pid = svc.service.supervisor.pid;
      const kept = await svc.post("/api/v1/edit", { name: "song.add", params: { title: "Kept" } });
      assert.equal(kept.status, 200);
      disk.fill();

      const song = await svc.post("/api/v1/edit", { name: "song.add", params: { title: "Lost" } });
      assert.equal(song.status, 507, JSON.stringify(song.body));
      assert.equal(song.body.error.code, "DISK_FULL");
      assert.match(song.body.error.message, new RegExp(`data dir ${disk.dir} is full: free space`));
      const preset = await svc.post("/api/v1/edit", {
        name: "preset.add",
        params: { kind: "effect", name: "Glow", type: "glow" },
      });
      assert.equal(preset.status, 507, JSON.stringify(preset.body));
      assert.equal(preset.body.error.code, "DISK_FULL");
      // Room for part of the file: its copy is what finds the disk full.
      disk.free(64 * 1024);
      await Deno.writeFile(`${media}/big.wav`, encodeWav(new Float32Array(1 << 19), 48_000));
      const imported = await svc.post("/api/v1/edit", {
        name: "file.import",
        params: { path: `${media}/big.wav` },
      });
      assert.equal(imported.status, 507, JSON.stringify(imported.body));
      assert.equal(imported.body.error.code, "DISK_FULL");
      const copies = [...Deno.readDirSync(`${disk.dir}/projects/show/media`)].map((e) => e.name);
      assert.deepEqual(copies, [], "the partial copy is gone");

      // What reads say is what was acknowledged, and the player stayed up.
      const titles = (await svc.get("/api/v1/projects/show/songs")).body.songs
        .map((s: { title: string }) => s.title);
      assert.ok(titles.includes("Kept") && !titles.includes("Lost"), titles.join(", "));
      assert.equal(svc.service.supervisor.pid, pid, "the player was not restarted");

      disk.free();
      const again = await svc.post("/api/v1/edit", {
        name: "song.add",
        params: { title: "Later" },
      });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      const saved = JSON.parse(await Deno.readTextFile(`${disk.dir}/projects/show/project.json`));
      const onDisk = saved.songs.map((s: { title: string }) => s.title);
      assert.ok(onDisk.includes("Kept") && onDisk.includes("Later") && !onDisk.includes("Lost"));
    } finally {
      await svc.stop({ keepData: true });
    }
  } finally {
    await disk.close();
    await Deno.remove(media, { recursive: true });
  }
});

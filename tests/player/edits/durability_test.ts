import assert from "node:assert/strict";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import { Project } from "../../../protocol/model.ts";
import { isDiskFull } from "../../../lib/disk_full.ts";
import { writeJsonAtomic } from "../../../lib/atomic_write.ts";
import { fixtureProject, openFixture } from "../../../tools/testing/fixture.ts";
import { mountTmpfs } from "../../../tools/testing/tmpfs.ts";

const readProject = async (dataDir: string) =>
  Project.parse(JSON.parse(await Deno.readTextFile(`${dataDir}/projects/show/project.json`)));

Deno.test("Editor: a crash before the project is renamed into place loses nothing acknowledged", async () => {
  const f = await openFixture();
  try {
    const first = await f.app.applyEdits({
      projectId: null,
      edits: [{ name: "project.rename", params: { name: "Acknowledged" } }],
    });
    assert.equal(first.revision, 1);
    f.app.store.hooks.beforeRename = (temp) => {
      if (temp.includes("project.json")) throw new Error("power cut");
    };
    await assert.rejects(
      f.app.applyEdits({
        projectId: null,
        edits: [{ name: "song.add", params: { title: "Lost in the crash" } }],
      }),
      /power cut/,
    );
    f.app.store.hooks = {};
    // The running player still shows the acknowledged state, not a half-applied one.
    const live = f.app.snapshot().projects[0]!;
    assert.equal(live.revision, 1);
    assert.ok(!live.songs.some((s) => s.title === "Lost in the crash"));
    // On disk: the acknowledged edit, whole; no temp file left behind.
    const disk = await readProject(f.dataDir);
    assert.equal(disk.name, "Acknowledged");
    assert.equal(disk.revision, 1);
    for await (const e of Deno.readDir(`${f.dataDir}/projects/show`)) {
      assert.ok(!e.name.endsWith(".tmp"), e.name);
    }
    // A restarted player loads it and can still undo the acknowledged edit.
    const again = await PlayerApp.open({ dataDir: f.dataDir, clock: new VirtualClock() });
    const undo = await again.applyEdits({
      projectId: null,
      edits: [{ name: "project.undo", params: {} }],
    });
    assert.equal(undo.edits[0]!.message, "Undid project.rename");
    assert.equal(again.snapshot().projects[0]!.name, "Fixture Show");
    await again.close();
  } finally {
    await f.close();
  }
});

Deno.test("Editor: the history is bounded by the setting and dropped when it does not match the project", async () => {
  const f = await openFixture();
  try {
    const app = await PlayerApp.open({
      dataDir: f.dataDir,
      clock: new VirtualClock(),
      historyLimit: 3,
    });
    for (let i = 0; i < 5; i++) {
      const result = await app.applyEdits({
        projectId: null,
        edits: [{ name: "project.set_zoom", params: { zoom: 2 + i } }],
      });
      assert.equal(result.history.undo, Math.min(i + 1, 3));
    }
    // A project written without its history (a crash between the two writes) is
    // loaded whole; the stale history is not trusted.
    const disk = await readProject(f.dataDir);
    await Deno.writeTextFile(
      `${f.dataDir}/projects/show/project.json`,
      JSON.stringify({ ...disk, revision: disk.revision + 1 }),
    );
    const reopened = await PlayerApp.open({ dataDir: f.dataDir, clock: new VirtualClock() });
    await assert.rejects(
      reopened.applyEdits({ projectId: null, edits: [{ name: "project.undo", params: {} }] }),
      /Nothing to undo/,
    );
    await Promise.all([app.close(), reopened.close()]);
  } finally {
    await f.close();
  }
});

Deno.test("Editor: an edit's retry key is saved with the Project; a restarted player answers the retry without applying it again", async () => {
  const f = await openFixture();
  try {
    const add = (key: string) =>
      f.app.applyEdits({
        projectId: null,
        edits: [{ name: "song.add", params: { title: "Once" } }],
        idempotencyKey: key,
      });
    const first = await add("k-1");
    assert.deepEqual(await add("k-1"), first, "a retry gets the first result");
    const raw = JSON.parse(await Deno.readTextFile(`${f.dataDir}/projects/show/project.json`));
    assert.deepEqual(raw.appliedKeys.map((k: { key: string }) => k.key), ["k-1"]);
    // The player died after writing the Project, before its answer got out: the retry
    // reaches a new player, which knows the key from the file.
    const again = await PlayerApp.open({ dataDir: f.dataDir, clock: new VirtualClock() });
    const retried = await again.applyEdits({
      projectId: null,
      edits: [{ name: "song.add", params: { title: "Once" } }],
      idempotencyKey: "k-1",
    });
    assert.deepEqual(retried, first);
    const titles = again.snapshot().projects[0]!.songs.filter((s) => s.title === "Once");
    assert.equal(titles.length, 1, "applied once");
    assert.ok(!("appliedKeys" in again.snapshot().projects[0]!), "the keys stay out of the model");
    // Undo with a key, too.
    const undo = { projectId: null, edits: [{ name: "project.undo", params: {} }] };
    const undone = await again.applyEdits({ ...undo, idempotencyKey: "u-1" });
    assert.deepEqual(await again.applyEdits({ ...undo, idempotencyKey: "u-1" }), undone);
    assert.equal(again.snapshot().projects[0]!.songs.filter((s) => s.title === "Once").length, 0);
    await again.close();
  } finally {
    await f.close();
  }
});

Deno.test("Editor: a full disk at the Project's temp, after the presets' temp was written, changes neither file", async () => {
  const f = await openFixture();
  try {
    const presetsFile = `${f.dataDir}/presets.json`;
    const before = await Deno.readTextFile(presetsFile).catch(() => null);
    f.app.store.hooks.beforeRename = (temp) => {
      if (!temp.includes("project.json")) return;
      throw Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });
    };
    await assert.rejects(
      f.app.applyEdits({
        projectId: null,
        edits: [{ name: "preset.add", params: { kind: "effect", name: "Glow", type: "glow" } }],
      }),
      /No space left on device/,
    );
    f.app.store.hooks = {};
    // Not acknowledged: neither the player nor its files (read at the next start) have it.
    assert.ok(!f.app.snapshot().presets.some((p) => p.name === "Glow"));
    const after = await Deno.readTextFile(presetsFile).catch(() => null);
    assert.ok(after === before || !after!.includes("Glow"), "presets.json has no Glow");
    const again = await PlayerApp.open({ dataDir: f.dataDir, clock: new VirtualClock() });
    assert.ok(!again.snapshot().presets.some((p) => p.name === "Glow"));
    await again.close();
  } finally {
    await f.close();
  }
});

Deno.test("Editor: a real full disk with room for presets.json's temp but not the Project's keeps the refused preset nowhere", async () => {
  const disk = await mountTmpfs("1m");
  try {
    await writeJsonAtomic(`${disk.dir}/projects/show/project.json`, fixtureProject());
    const app = await PlayerApp.open({ dataDir: disk.dir, clock: new VirtualClock() });
    const project = await Deno.stat(`${disk.dir}/projects/show/project.json`);
    assert.ok(project.size > 4096, "the Project's temp takes more than the one page left");
    disk.fill();
    disk.free(4096); // one tmpfs page: room for the presets' temp (one preset), not the Project's
    const refused = await app.applyEdits({
      projectId: null,
      edits: [{ name: "preset.add", params: { kind: "effect", name: "Glow", type: "glow" } }],
    }).then(() => null, (error) => error);
    assert.ok(isDiskFull(refused), String(refused));
    assert.ok(!app.snapshot().presets.some((p) => p.name === "Glow"));
    await app.close();
    disk.free();
    const names = [...Deno.readDirSync(disk.dir)].map((e) => e.name);
    assert.ok(!names.some((n) => n.endsWith(".tmp")), names.join());
    const again = await PlayerApp.open({ dataDir: disk.dir, clock: new VirtualClock() });
    assert.ok(
      !again.snapshot().presets.some((p) => p.name === "Glow"),
      "Glow back after a restart",
    );
    await again.close();
  } finally {
    await disk.close();
  }
});

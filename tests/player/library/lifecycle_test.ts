import assert from "node:assert/strict";
import { openFixture } from "../../../tools/testing/fixture.ts";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import type { EditApplyParams } from "../../../protocol/edits/mod.ts";

const edit = (
  name: string,
  params: Record<string, unknown> = {},
  projectId: string | null = null,
) => ({ projectId, edits: [{ name, params }] }) as EditApplyParams;

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function trashNames(dataDir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(`${dataDir}/trash`))).map((e) => e.name).sort();
}

Deno.test("project.create makes an empty Project under an id from its name, -2 when taken", async () => {
  const f = await openFixture();
  try {
    const first = await f.app.applyEdits(
      edit("project.create", { name: "Tour 2026: Z\u00fcrich" }),
    );
    assert.equal(first.projectId, "tour-2026-zurich");
    assert.deepEqual(first.edits[0]!.created, { projectId: "tour-2026-zurich" });
    const again = await f.app.applyEdits(
      edit("project.create", { name: "Tour 2026: Z\u00fcrich" }),
    );
    assert.equal(again.projectId, "tour-2026-zurich-2");
    const made = f.app.snapshot().projects.find((p) => p.id === "tour-2026-zurich")!;
    assert.equal(made.controls.length, 26);
    assert.deepEqual([made.songs, made.clips, made.files], [[], [], []]);
    assert.ok(await exists(`${f.dataDir}/projects/tour-2026-zurich/project.json`));
    const opened = f.updates.filter((u) => u.data.event === "project-opened");
    assert.deepEqual(opened.map((u) => [u.projectId, u.data.reason]), [
      ["tour-2026-zurich", "created"],
      ["tour-2026-zurich-2", "created"],
    ]);
    await assert.rejects(
      f.app.applyEdits(edit("project.create", { name: "X", projectID: "show" })),
      /Invalid params\.projectID: "show" is taken \(a Project open has it\)/,
    );
    await assert.rejects(
      f.app.applyEdits(edit("project.create", { name: "X", projectID: "a b" })),
      /Invalid params\.projectID/,
    );
    await assert.rejects(
      f.app.applyEdits({
        projectId: null,
        edits: [
          { name: "project.create", params: { name: "Y" } },
          { name: "project.rename", params: { name: "Z" } },
        ],
      }),
      /project\.create cannot be part of a batch: send it alone/,
    );
  } finally {
    await f.close();
  }
});

Deno.test("project.create from the demo, then project.duplicate: media linked, history not copied", async () => {
  const f = await openFixture();
  try {
    await f.app.applyEdits(
      edit("project.create", { name: "Gig", template: "demo", projectID: "gig" }),
    );
    await f.app.applyEdits(edit("project.rename", { name: "Gig A" }, "gig"));
    const dup = await f.app.applyEdits(edit("project.duplicate", {}, "gig"));
    assert.equal(dup.projectId, "gig-a-copy");
    assert.deepEqual(dup.history, { undo: 0, redo: 0 });
    const [gig, copy] = ["gig", "gig-a-copy"].map((id) =>
      f.app.snapshot().projects.find((p) => p.id === id)!
    );
    assert.equal(copy!.name, "Gig A (copy)");
    assert.deepEqual({ ...copy!, id: "gig", name: "Gig A", revision: 0 }, { ...gig!, revision: 0 });
    assert.ok(gig!.files.length > 5);
    for (const file of gig!.files) {
      const a = await Deno.stat(`${f.dataDir}/projects/gig/${file.path}`);
      const b = await Deno.stat(`${f.dataDir}/projects/gig-a-copy/${file.path}`);
      assert.equal(a.ino, b.ino, `${file.path} is a hard link`);
    }
    assert.equal(await exists(`${f.dataDir}/projects/gig-a-copy/history.json`), false);
  } finally {
    await f.close();
  }
});

Deno.test("project.delete: refused while playing, forced; undo refused naming restore; restore equal", async () => {
  const f = await openFixture();
  try {
    await f.app.applyEdits(edit("project.create", { name: "Spare" }));
    const before = f.app.snapshot().projects.find((p) => p.id === "show")!;
    await f.run("PLAY_IN");
    await assert.rejects(f.app.applyEdits(edit("project.delete")), /needs the Project named/);
    await assert.rejects(
      f.app.applyEdits(edit("project.delete", {}, "show")),
      /Project "show" is playing: stop it first, or send project.delete with "force": true/,
    );
    f.updates.length = 0;
    const gone = await f.app.applyEdits(edit("project.delete", { force: true }, "show"));
    assert.match(gone.edits[0]!.message, /project\.restore .* until the service restarts/);
    const [trashed] = await trashNames(f.dataDir);
    assert.match(trashed!, /^show\.\d{13}$/, "named with the time of the delete");
    assert.ok(await exists(`${f.dataDir}/trash/${trashed}/project.json`));
    assert.equal(await exists(`${f.dataDir}/projects/show`), false);
    const events = f.events().filter((e) => e.startsWith("project:"));
    assert.deepEqual(events, ["project:project-closed", "project:active-project-changed"]);
    assert.equal(f.app.snapshot().activeProjectId, "spare");
    assert.equal(f.app.library().find((e) => e.projectId === "show")?.state, "deleted");
    await assert.rejects(
      f.app.applyEdits(edit("project.undo", {}, "show")),
      /Project "show" is deleted: send project.restore \{"projectID": "show"\}/,
    );
    await assert.rejects(
      f.app.applyEdits(edit("project.create", { name: "Show", projectID: "show" })),
      /"show" is taken \(a Project deleted has it\)/,
    );
    const back = await f.app.applyEdits(edit("project.restore", { projectID: "show" }));
    assert.equal(back.projectId, "show");
    const after = f.app.snapshot().projects.find((p) => p.id === "show")!;
    assert.deepEqual(after, before);
    assert.equal(f.app.library().filter((e) => e.projectId === "show").length, 1);
  } finally {
    await f.close();
  }
});

Deno.test("project.restore under a new id when the id was taken meanwhile", async () => {
  const f = await openFixture();
  try {
    await f.app.applyEdits(edit("project.create", { name: "Spare", projectID: "spare" }));
    await f.app.applyEdits(edit("project.delete", {}, "spare"));
    // The id is taken again meanwhile (an import of the same show, say).
    await Deno.mkdir(`${f.dataDir}/projects/spare`);
    const back = await f.app.applyEdits(edit("project.restore", { projectID: "spare" }));
    assert.equal(back.projectId, "spare-2");
    assert.match(back.edits[0]!.message, /restored as "spare-2" \(its id was taken meanwhile\)/);
    assert.equal(f.app.library().some((e) => e.state === "deleted"), false);
    await assert.rejects(
      f.app.applyEdits(edit("project.restore", { projectID: "spare" })),
      /No deleted Project "spare" is in the trash/,
    );
  } finally {
    await f.close();
  }
});

Deno.test("project.close and project.open: closed ones stay closed over a restart; the trash is emptied", async () => {
  const f = await openFixture();
  let app: PlayerApp | null = null;
  try {
    await f.app.applyEdits(edit("project.create", { name: "Spare", projectID: "spare" }));
    await f.app.applyEdits(edit("project.create", { name: "Gone", projectID: "gone" }));
    await f.app.applyEdits(edit("project.delete", {}, "gone"));
    await f.app.applyEdits(edit("project.close", {}, "show"));
    assert.equal(f.app.snapshot().activeProjectId, "spare");
    await f.app.close();
    await Deno.mkdir(`${f.dataDir}/projects/.new-stale`); // a kill in the middle of a create
    app = await PlayerApp.open({ dataDir: f.dataDir, clock: new VirtualClock() });
    assert.deepEqual(app.snapshot().projects.map((p) => p.id), ["spare"]);
    assert.deepEqual(app.library().map((e) => [e.projectId, e.state]), [
      ["spare", "open"],
      ["show", "closed"],
    ]);
    assert.deepEqual(await trashNames(f.dataDir), []);
    assert.equal(await exists(`${f.dataDir}/projects/.new-stale`), false);
    await assert.rejects(
      app.applyEdits(edit("project.open", { projectID: "spare" })),
      /Project "spare" is open already/,
    );
    const opened = await app.applyEdits(edit("project.open", { projectID: "show" }));
    assert.equal(opened.projectId, "show");
    assert.equal(app.library().every((e) => e.state === "open"), true);
  } finally {
    await app?.close();
    await f.close().catch(() => Deno.remove(f.dataDir, { recursive: true }));
  }
});

Deno.test("PlayerApp.open() makes the demo on the first start only, not when every Project was deleted", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-lifecycle-" });
  try {
    // A first start killed while it built the demo: the next start is a first start again.
    await Deno.mkdir(`${dataDir}/.new-projects/demo/media`, { recursive: true });
    let app = await PlayerApp.open({ dataDir, clock: new VirtualClock() });
    assert.deepEqual(app.snapshot().projects.map((p) => p.id), ["demo"]);
    await app.applyEdits(edit("project.delete", {}, "demo"));
    assert.equal(app.snapshot().activeProjectId, null);
    await app.close();
    app = await PlayerApp.open({ dataDir, clock: new VirtualClock() });
    assert.deepEqual(app.library(), []);
    const made = await app.applyEdits(edit("project.create", { name: "First" }));
    assert.equal(made.projectId, "first");
    assert.equal(app.snapshot().activeProjectId, "first", "the only Project is the active one");
    await app.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a player restarted within the service run keeps the trash deleted since the service started", async () => {
  const f = await openFixture();
  let app: PlayerApp | null = null;
  try {
    await f.app.applyEdits(edit("project.create", { name: "Gone", projectID: "gone" }));
    await Deno.mkdir(`${f.dataDir}/trash/old.1000`, { recursive: true }); // a run long past
    const serviceStartedAt = Date.now();
    await f.app.applyEdits(edit("project.delete", {}, "gone"));
    await f.app.close();
    app = await PlayerApp.open({ dataDir: f.dataDir, clock: new VirtualClock(), serviceStartedAt });
    assert.deepEqual((await trashNames(f.dataDir)).map((n) => n.split(".")[0]), ["gone"]);
    assert.deepEqual(
      app.library().filter((e) => e.projectId === "gone").map((e) => [e.name, e.state]),
      [["Gone", "deleted"]],
      "listed deleted as before the restart",
    );
    const restored = await app.applyEdits(edit("project.restore", { projectID: "gone" }));
    assert.equal(restored.projectId, "gone");
    assert.deepEqual(await trashNames(f.dataDir), []);
  } finally {
    await app?.close();
    await f.close().catch(() => Deno.remove(f.dataDir, { recursive: true }));
  }
});

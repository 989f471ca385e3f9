import assert from "node:assert/strict";
import { jpeg } from "../../../tools/testing/media.ts";
import { openFixture } from "../../../tools/testing/fixture.ts";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("Editor: an undone import keeps its file while redo can bring it back, and deletes it after", async () => {
  const f = await openFixture();
  const source = await Deno.makeTempFile({ suffix: ".jpg" });
  try {
    await Deno.writeFile(source, jpeg(64, 48));
    const edit = (name: string, params: Record<string, unknown> = {}) =>
      f.app.applyEdits({ projectId: null, edits: [{ name, params }] });
    const media = `${f.dataDir}/projects/show/media`;
    const byHand = `${media}/placed-by-hand.jpg`;
    await Deno.mkdir(media, { recursive: true });
    await Deno.writeFile(byHand, jpeg(8, 8));

    const imported = await edit("file.import", { path: source, name: "poster.jpg" });
    const file = `${f.dataDir}/projects/show/${
      f.app.snapshot().projects[0]!.files.find((x) => x.name === "poster.jpg")!.path
    }`;
    assert.equal(imported.edits[0]!.name, "file.import");
    await edit("project.undo");
    assert.ok(await exists(file), "redo still needs the file");
    await edit("project.redo");
    await edit("project.undo");
    assert.ok(await exists(file));

    // A new edit drops the redo step: nothing can bring the file back, so it goes.
    await edit("project.rename", { name: "After the undo" });
    assert.ok(!(await exists(file)), "the orphaned import is deleted");
    assert.ok(await exists(byHand), "a file no step ever named is left alone");
  } finally {
    await Deno.remove(source);
    await f.close();
  }
});

Deno.test("Editor: an import still in the Project survives its step leaving the bounded history", async () => {
  const f = await openFixture();
  const app = await PlayerApp.open({
    dataDir: f.dataDir,
    clock: new VirtualClock(),
    historyLimit: 2,
  });
  const source = await Deno.makeTempFile({ suffix: ".jpg" });
  try {
    await Deno.writeFile(source, jpeg(64, 48));
    const edit = (name: string, params: Record<string, unknown> = {}) =>
      app.applyEdits({ projectId: null, edits: [{ name, params }] });
    await edit("file.import", { path: source, name: "kept.jpg" });
    const path = app.snapshot().projects[0]!.files.find((x) => x.name === "kept.jpg")!.path;
    // Two more steps push the import out of a history of two.
    await edit("project.rename", { name: "One" });
    await edit("project.rename", { name: "Two" });
    assert.deepEqual((await edit("project.undo")).edits[0]!.message, "Undid project.rename");
    assert.ok(await exists(`${f.dataDir}/projects/show/${path}`));
  } finally {
    await app.close();
    await Deno.remove(source);
    await f.close();
  }
});

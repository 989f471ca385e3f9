import assert from "node:assert/strict";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import { importShow, type ShowApp } from "../../../player/show/mod.ts";
import { commitShow, stageShow } from "../../../player/show/import.ts";
import { mergePendingPresets } from "../../../player/show/pending_presets.ts";
import { type Preset, Project } from "../../../protocol/model.ts";
import { fixtureDataDir, fixtureProject, openFixture } from "../../../tools/testing/fixture.ts";
import { buildShowFile } from "../../../tools/testing/show_files.ts";

const MEDIA = new Uint8Array([1, 2, 3, 4, 5]);

function glow(code: string): Preset {
  return {
    id: "glow",
    kind: "effect",
    name: "Glow",
    type: "isf",
    builtIn: false,
    parameters: [],
    code,
    quarantine: null,
  };
}

/** A show file of Project "tour" with one media file and the preset `preset`. */
async function tourShow(preset: Preset): Promise<Uint8Array> {
  const project = Project.parse({
    id: "tour",
    name: "Tour",
    files: [{
      id: "f1",
      kind: "image",
      name: "a.png",
      path: "media/a.png",
      mimeType: "image/png",
      size: MEDIA.length,
      width: 1,
      height: 1,
      duration: null,
    }],
    effects: [{ id: "fx1", name: "Glow", type: "isf", presetId: "glow" }],
  });
  return await buildShowFile(project, [preset], { "media/a.png": MEDIA });
}

async function open(dataDir: string): Promise<PlayerApp> {
  return await PlayerApp.open({ dataDir, clock: new VirtualClock(), positionIntervalMs: 0 });
}

const NO_PROGRESS = { progress: () => {}, signal: new AbortController().signal };

Deno.test("show.import: a preset of another content under a taken id is renamed, the Project follows; an identical one is reused", async () => {
  const dataDir = await fixtureDataDir();
  await Deno.writeTextFile(`${dataDir}/presets.json`, JSON.stringify([glow("// mine")]));
  const app = await open(dataDir);
  try {
    const file = `${dataDir}/tour.cueport.zip`;
    await Deno.writeFile(file, await tourShow(glow("// theirs")));
    const first = await importShow(app, { path: file, replace: false }, NO_PROGRESS).settle();
    assert.deepEqual(first.presetsRenamed, [{ from: "glow", to: "glow-2" }]);
    const project = app.snapshot().projects.find((p) => p.id === "tour")!;
    assert.equal(project.effects[0]!.presetId, "glow-2");
    const stored = JSON.parse(await Deno.readTextFile(`${dataDir}/presets.json`));
    assert.deepEqual(stored.map((p: Preset) => [p.id, p.code]), [["glow", "// mine"], [
      "glow-2",
      "// theirs",
    ]]);
    assert.equal(
      await Deno.stat(`${dataDir}/projects/tour/presets.pending.json`).catch(() => null),
      null,
    );

    await Deno.writeFile(file, await tourShow(glow("// mine")));
    const second = await importShow(app, { path: file, replace: false }, NO_PROGRESS).settle();
    assert.equal(second.projectId, "tour-2");
    assert.deepEqual(
      [second.presetsAdded, second.presetsRenamed],
      [[], []],
      "the same preset is reused",
    );
    const again = app.snapshot().projects.find((p) => p.id === "tour-2")!;
    assert.equal(again.effects[0]!.presetId, "glow");
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("show.import: a start after a kill removes the staging, merges presets left pending, and puts back a Project set aside", async () => {
  const dataDir = await fixtureDataDir();
  let app = await open(dataDir);
  try {
    const file = `${dataDir}/tour.cueport.zip`;
    await Deno.writeFile(file, await tourShow(glow("// theirs")));
    const host = {
      dataDir,
      presets: () => app.presets(),
      hasProject: () => false,
      isBusy: () => false,
      importing: () => 0,
      removeProject: () => Promise.resolve(),
      trash: () => Promise.resolve(),
      adoptProject: () => Promise.reject(new Error("killed before")),
    };
    // Killed mid-extract: the staging is all there is.
    const killedEarly = await stageShow({ path: file }, host);
    // Killed after the rename, before the adoption: the folder and its pending presets.
    await assert.rejects(
      commitShow(await stageShow({ path: file }, host), host, { replace: false }),
      /killed before/,
    );
    // Killed while a replace had set the fixture's Project aside.
    await Deno.rename(`${dataDir}/projects/show`, `${dataDir}/projects/.replaced-show.0a1b2c3d`);
    await app.close();

    app = await open(dataDir);
    const names = (await Array.fromAsync(Deno.readDir(`${dataDir}/projects`))).map((e) => e.name);
    assert.deepEqual(names.sort(), ["show", "tour"]);
    assert.ok(!names.includes(killedEarly.staging.split("/").pop()!));
    assert.deepEqual(app.snapshot().projects.map((p) => p.id).sort(), ["show", "tour"]);
    assert.ok(
      app.presets().some((p) => p.id === "glow" && p.code === "// theirs"),
      "merged at start",
    );
    assert.equal(
      await Deno.stat(`${dataDir}/projects/tour/presets.pending.json`).catch(() => null),
      null,
    );
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("show.import with replace: refused while the Project plays unless force, then stops and replaces it", async () => {
  const f = await openFixture();
  try {
    const file = `${f.dataDir}/show.cueport.zip`;
    const project = { ...fixtureProject(), name: "Imported" };
    const media = Object.fromEntries(project.files.map((m) => [m.path, MEDIA]));
    await Deno.writeFile(file, await buildShowFile(project, [], media));
    await f.run("PLAY_IN");
    const params = { path: file, replace: true };
    await assert.rejects(
      importShow(f.app, params, NO_PROGRESS).settle(),
      /Project "show" is playing: stop it first, or import with force: \?force=true over HTTP, "force": true over MCP, --force with cueport show import$/,
    );
    assert.equal(f.app.snapshot().projects.find((p) => p.id === "show")!.name, "Fixture Show");
    const staged = (await Array.fromAsync(Deno.readDir(`${f.dataDir}/projects`))).map((e) =>
      e.name
    );
    assert.deepEqual(staged, ["show"], "nothing staged is left");
    const forced = await importShow(f.app, { ...params, force: true }, NO_PROGRESS).settle();
    assert.deepEqual([forced.projectId, forced.replaced], ["show", true]);
    assert.equal(f.app.snapshot().projects.find((p) => p.id === "show")!.name, "Imported");
    assert.deepEqual(f.state().clips, [], "it stopped");
  } finally {
    await f.close();
  }
});

Deno.test("show.import with replace: refused while files are imported into the Project, even with force", async () => {
  const f = await openFixture();
  try {
    const file = `${f.dataDir}/show.cueport.zip`;
    const project = { ...fixtureProject(), name: "Imported" };
    const media = Object.fromEntries(project.files.map((m) => [m.path, MEDIA]));
    await Deno.writeFile(file, await buildShowFile(project, [], media));
    // The app as the import sees it, while a `file.import` copies 2 files into "show".
    const app = f.app;
    const copying: ShowApp = {
      store: app.store,
      presets: () => app.presets(),
      library: () => app.library(),
      snapshot: () => app.snapshot(),
      removeProject: (id, reason) => app.removeProject(id, reason),
      keepInTrash: (id, folder) => app.keepInTrash(id, folder),
      adoptProject: (id, reason) => app.adoptProject(id, reason),
      importing: (id) => id === "show" ? 2 : 0,
    };
    await assert.rejects(
      importShow(copying, { path: file, replace: true, force: true }, NO_PROGRESS).settle(),
      /^Refusal: Project "show" is receiving imported files: wait for the import of 2 file\(s\) to finish, or cancel it, then send show.import again$/,
    );
    assert.equal(f.app.snapshot().projects.find((p) => p.id === "show")!.name, "Fixture Show");
    const left = (await Array.fromAsync(Deno.readDir(`${f.dataDir}/projects`))).map((e) => e.name);
    assert.deepEqual(left, ["show"], "nothing staged is left, nothing set aside");
    assert.equal(f.app.importing("show"), 0, "the real app: no import copies now");
    const replaced = await importShow(f.app, { path: file, replace: true }, NO_PROGRESS).settle();
    assert.deepEqual([replaced.projectId, replaced.replaced], ["show", true]);
  } finally {
    await f.close();
  }
});

Deno.test("show.import: two imports staged at once that bring one preset id of other contents: the second is renamed at its commit", async () => {
  const dataDir = await fixtureDataDir();
  const app = await open(dataDir);
  try {
    const [a, b] = [`${dataDir}/a.cueport.zip`, `${dataDir}/b.cueport.zip`];
    await Deno.writeFile(a, await tourShow(glow("// a")));
    await Deno.writeFile(b, await tourShow(glow("// b")));
    const first = importShow(app, { path: a, replace: false }, NO_PROGRESS);
    const second = importShow(app, { path: b, replace: false }, NO_PROGRESS);
    const [commitFirst, commitSecond] = [await first.ready, await second.ready];
    assert.deepEqual((await commitFirst()).presetsAdded, ["glow"]);
    const later = await commitSecond();
    assert.equal(later.projectId, "tour-2");
    assert.deepEqual([later.presetsAdded, later.presetsRenamed], [["glow-2"], [{
      from: "glow",
      to: "glow-2",
    }]]);
    const project = app.snapshot().projects.find((p) => p.id === "tour-2")!;
    assert.equal(project.effects[0]!.presetId, "glow-2");
    assert.deepEqual(
      app.presets().filter((p) => !p.builtIn).map((p) => [p.id, p.code]),
      [["glow", "// a"], ["glow-2", "// b"]],
    );
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("mergePendingPresets: a pending preset whose id is known with other content is refused and logged; an unreadable file is logged and kept aside", async () => {
  const dataDir = await fixtureDataDir();
  const app = await open(dataDir);
  const lines: string[] = [];
  const pending = `${dataDir}/projects/show/presets.pending.json`;
  try {
    const other = { ...glow("// theirs"), id: "other" };
    await Deno.writeTextFile(pending, JSON.stringify([glow("// theirs"), other]));
    const merged = await mergePendingPresets(
      app.store,
      "show",
      [glow("// mine")],
      [],
      (l) => lines.push(l),
    );
    assert.deepEqual(merged!.map((p) => [p.id, p.code]), [["glow", "// mine"], [
      "other",
      "// theirs",
    ]]);
    assert.deepEqual(lines, [
      'Project "show": pending preset "glow" not added: a preset of other content has its id ' +
      "(kept in projects/show/presets.pending.refused.json)",
    ]);
    const refused = JSON.parse(
      await Deno.readTextFile(`${dataDir}/projects/show/presets.pending.refused.json`),
    );
    assert.deepEqual(refused.map((p: Preset) => p.code), ["// theirs"]);
    lines.length = 0;

    await Deno.writeTextFile(pending, "{ cut sh");
    assert.deepEqual(
      await mergePendingPresets(app.store, "show", [], [], (l) => lines.push(l)),
      [],
    );
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      /^Project "show": presets\.pending\.json cannot be read \(.+\); kept as projects\/show\/presets\.pending\.unreadable\.json$/,
    );
    assert.equal(
      await Deno.readTextFile(`${dataDir}/projects/show/presets.pending.unreadable.json`),
      "{ cut sh",
    );
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

import assert from "node:assert/strict";
import { PlayerApp, type PlayerOptions } from "../../player/app.ts";
import { VirtualClock } from "../../player/clock.ts";
import { ProjectStore } from "../../player/store.ts";
import { checkHistory } from "../../player/edits/history.ts";
import { fixtureDataDir, fixtureProject } from "../../tools/testing/fixture.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function open(dataDir: string, options: Partial<PlayerOptions> = {}): Promise<PlayerApp> {
  return PlayerApp.open({ dataDir, clock: new VirtualClock(), positionIntervalMs: 0, ...options });
}

async function withDir(test: (dir: string) => Promise<void>): Promise<void> {
  const dir = await fixtureDataDir();
  try {
    await test(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const names = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

Deno.test("ProjectStore.readProject() serves the newest good kept copy, keeps the damaged file and writes the copy back", () =>
  withDir(async (dir) => {
    const store = new ProjectStore(dir);
    await store.saveProject({ ...fixtureProject(), name: "Second" });
    await store.saveProject({ ...fixtureProject(), name: "Third" });
    const path = `${dir}/projects/show/project.json`;
    await Deno.writeTextFile(path, JSON.stringify({ ...fixtureProject(), clips: 5 }));
    const read = await store.readProject("show");
    assert.equal(read.project.name, "Second");
    assert.equal(read.problem?.file, "projects/show/project.json");
    assert.match(read.problem!.problem, /^clips: /);
    assert.equal(read.problem?.recoveredFrom, "projects/show/project.json.1");
    assert.match(read.problem!.keptAs!, /^projects\/show\/project\.json\.damaged-/);
    assert.equal(JSON.parse(await Deno.readTextFile(path)).name, "Second");
    assert.equal(JSON.parse(await Deno.readTextFile(`${dir}/${read.problem!.keptAs}`)).clips, 5);
    // The next save rotates the good copy, not the damage, into the generations.
    await store.saveProject({ ...fixtureProject(), name: "Fourth" });
    assert.equal(JSON.parse(await Deno.readTextFile(`${path}.1`)).name, "Second");
  }));

Deno.test("PlayerApp.open() lists a Project with no good copy damaged, leaves its file, refuses what names it", () =>
  withDir(async (dir) => {
    const path = `${dir}/projects/show/project.json`;
    await Deno.writeTextFile(path, "");
    const logs: string[] = [];
    const app = await open(dir, { log: (level, m) => logs.push(`${level}: ${m}`) });
    try {
      const [entry] = app.library();
      assert.equal(entry?.state, "damaged");
      assert.equal(entry?.problem?.problem, "empty file");
      assert.equal(app.snapshot().problems.length, 1);
      assert.deepEqual(logs, [
        "warn: Damaged file projects/show/project.json: empty file; no good copy: the Project is " +
        "listed damaged and not loaded; repair or replace the file, then open it (project.open)",
      ]);
      assert.equal(await Deno.readTextFile(path), "");
      assert.deepEqual(names(`${dir}/projects/show`), ["project.json"]);
      const action = { name: "PLAY_IN", params: {}, projectId: "show" };
      await assert.rejects(
        app.runAction(action),
        /"show" is damaged \(projects\/show\/project\.json: empty file\)/,
      );
      const edit = { projectId: "show", edits: [{ name: "song.add", params: { title: "X" } }] };
      await assert.rejects(app.applyEdits(edit), /projects\/show\/project\.json: empty file/);
    } finally {
      await app.close();
    }
  }));

Deno.test("PlayerApp carries the live state of a damaged Project and restores it when the Project opens again", () =>
  withDir(async (dir) => {
    const first = await open(dir);
    await first.runAction({
      name: "SET_CONTROL",
      params: { controlID: "C", value: 0.75 },
      projectId: null,
    });
    await first.close();
    const path = `${dir}/projects/show/project.json`;
    const good = await Deno.readTextFile(path);
    for (const name of names(`${dir}/projects/show`)) {
      if (/^project\.json\.\d$/.test(name)) await Deno.remove(`${dir}/projects/show/${name}`);
    }
    await Deno.writeTextFile(path, good.slice(0, 40)); // truncated
    const second = await open(dir);
    try {
      await second.flushLiveState(); // a write with the Project not open
      const saved = JSON.parse(await Deno.readTextFile(`${dir}/live.json`)) as Json;
      assert.deepEqual(saved.projects.show.live.controls, { C: 0.75 });
      await Deno.writeTextFile(path, good); // the operator repairs it
      await second.adoptProject("show", "opened");
      assert.deepEqual(second.snapshot().live.show?.controls, { C: 0.75 });
    } finally {
      await second.close();
    }
  }));

Deno.test("PlayerApp.open() serves presets.json and player.json from kept copies, or defaults with the file moved aside", () =>
  withDir(async (dir) => {
    const store = new ProjectStore(dir);
    await store.saveSettings({
      activeProjectId: "show",
      fullScreen: false,
      outputDisplay: null,
      muted: true,
      volume: 0.5,
      closedProjectIds: [],
    });
    await store.saveSettings({
      activeProjectId: "show",
      fullScreen: false,
      outputDisplay: null,
      muted: true,
      volume: 0.4,
      closedProjectIds: [],
    });
    await Deno.writeTextFile(`${dir}/player.json`, '{"volume": "loud"}');
    await Deno.writeTextFile(`${dir}/presets.json`, "[1,");
    const app = await open(dir);
    try {
      assert.equal(app.appState.volume, 0.5);
      const problems = app.snapshot().problems.map((p) => [p.file, p.recoveredFrom]);
      assert.deepEqual(problems.sort(), [["player.json", "player.json.1"], ["presets.json", null]]);
      assert.ok(names(dir).some((n) => n.startsWith("presets.json.damaged-")));
      assert.ok(
        !names(dir).includes("presets.json"),
        "the damaged file is not left to be overwritten",
      );
    } finally {
      await app.close();
    }
  }));

Deno.test("checkHistory() moves a history.json that does not match its shape aside and reports it", () =>
  withDir(async (dir) => {
    await Deno.writeTextFile(
      `${dir}/projects/show/history.json`,
      '{"projectRevision": 1, "undo": 3}',
    );
    const problem = await checkHistory(dir, "show");
    assert.equal(problem?.file, "projects/show/history.json");
    assert.equal(problem?.projectId, "show");
    assert.match(problem!.problem, /^undo: /);
    assert.equal(problem?.recoveredFrom, null);
    assert.ok(!names(`${dir}/projects/show`).includes("history.json"));
    assert.equal(await checkHistory(dir, "show"), null);
  }));

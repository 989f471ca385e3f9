/**
 * A service started on a data dir with one damaged file: it starts, says which file in
 * `/health`, serves the newest good copy, and loses no live state.
 */
import assert from "node:assert/strict";
import { startTestService, type TestService } from "../../tools/testing/service.ts";
import { runStatusCommand } from "../../server/deploy/status_command.ts";
import { startServiceProcess } from "../../tools/testing/service_process.ts";
import { copyDir } from "../../tools/reliability/data_damage.ts";

/**
 * A demo data dir with kept copies: two edits, a Song selected, a Control moved, a preset. Made
 * once by a service (`prepare`), then copied for each test (each start of the demo costs a
 * second of CPU).
 */
async function preparedDataDir(): Promise<string> {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-damage-" });
  await copyDir(await template, dataDir);
  return dataDir;
}

/** The prepared data dir every test copies, removed when the tests end. */
const template = prepare();
template.catch(() => {}); // a failure is each test's to report, where it awaits the template
globalThis.addEventListener("unload", () => {
  template.then((dir) => Deno.removeSync(dir, { recursive: true })).catch(() => {});
});

async function prepare(): Promise<string> {
  const svc = await startTestService({}, { demo: true });
  try {
    for (const title of ["Encore", "Second encore"]) {
      const edit = await svc.post("/api/v1/edit", {
        edits: [{ name: "song.add", params: { title } }],
      });
      assert.equal(edit.status, 200, JSON.stringify(edit.body));
    }
    await action(svc, "SONG_SELECT_BY_ID", ["song-midnight"]);
    await action(svc, "SET_CONTROL", ["A", 0.25]);
  } finally {
    await svc.stop({ keepData: true }); // the live state is written as it closes
  }
  return svc.dataDir;
}

async function action(svc: TestService, name: string, params: unknown[] = []) {
  const answer = await svc.post("/api/v1/action", { name, params });
  assert.equal(answer.status, 200, `${name}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Flips one byte in the middle of `path`. */
async function flipByte(path: string): Promise<void> {
  const bytes = await Deno.readFile(path);
  const i = Math.floor(bytes.length / 2);
  bytes[i] = bytes[i]! ^ 0x5a ^ (bytes[i] === 0x22 ? 0 : 0x7f); // never a valid swap of quotes
  await Deno.writeFile(path, bytes);
}

/** Starts on `dataDir`, runs `check` and stops, keeping the dir (`damaged` removes it). */
async function startedOn(dataDir: string, check: (svc: TestService) => Promise<void>) {
  const svc = await startTestService({}, { dataDir });
  try {
    await check(svc);
  } finally {
    await svc.stop({ keepData: true });
  }
}

/** Runs `test` on a prepared data dir, then removes it. */
async function damaged(test: (dataDir: string) => Promise<void>) {
  const dataDir = await preparedDataDir();
  try {
    await test(dataDir);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

async function assertLiveKept(svc: TestService) {
  const playstate = (await svc.get("/api/v1/projects/demo/playstate")).body;
  assert.equal(playstate.activeSongID, "song-midnight");
  assert.equal(playstate.controls.A, 0.25);
}

Deno.test("A service on a project.json with one byte broken serves its newest good copy and says so", () =>
  damaged(async (dataDir) => {
    await flipByte(`${dataDir}/projects/demo/project.json`);
    await startedOn(dataDir, async (svc) => {
      const health = (await svc.get("/health")).body;
      assert.equal(health.status, "degraded");
      assert.equal(health.problems.length, 1, JSON.stringify(health.problems));
      const [problem] = health.problems;
      assert.equal(problem.file, "projects/demo/project.json");
      assert.equal(problem.recoveredFrom, "projects/demo/project.json.1");
      assert.match(problem.keptAs, /^projects\/demo\/project\.json\.damaged-/);
      const { projects } = (await svc.get("/api/v1/projects")).body;
      const demo = projects.find((p: { projectId: string }) => p.projectId === "demo");
      assert.equal(demo?.state, "open");
      assert.equal(demo?.problem?.file, "projects/demo/project.json");
      // The copy before the last edit: one Song added, not two.
      const titles = (await svc.get("/api/v1/projects/demo/songs")).body.songs
        .map((s: { title: string }) => s.title);
      assert.ok(titles.includes("Encore") && !titles.includes("Second encore"), titles.join());
      await assertLiveKept(svc);
      await action(svc, "PLAY_IN");
    });
  }));

Deno.test("A service on a project.json with no good copy lists it damaged, refuses actions naming the file, and keeps its live state", () =>
  damaged(async (dataDir) => {
    for (let n = 1; n <= 3; n++) {
      await Deno.remove(`${dataDir}/projects/demo/project.json.${n}`).catch(() => {});
    }
    await flipByte(`${dataDir}/projects/demo/project.json`);
    const damaged = await Deno.readFile(`${dataDir}/projects/demo/project.json`);
    const before = JSON.parse(await Deno.readTextFile(`${dataDir}/live.json`)).projects.demo;
    await startedOn(dataDir, async (svc) => {
      const health = (await svc.get("/health")).body;
      assert.equal(health.status, "degraded");
      assert.equal(health.problems[0].recoveredFrom, null);
      const { projects } = (await svc.get("/api/v1/projects")).body;
      assert.deepEqual(projects.map((p: { state: string }) => p.state), ["damaged"]);
      const refused = await svc.post("/api/v1/action", { name: "PLAY_IN", projectID: "demo" });
      assert.equal(refused.status, 404, JSON.stringify(refused.body));
      assert.match(refused.body.error.message, /projects\/demo\/project\.json: not JSON/);
      // The file is left as it was, for the operator to repair.
      assert.deepEqual(await Deno.readFile(`${dataDir}/projects/demo/project.json`), damaged);
    });
    const after = JSON.parse(await Deno.readTextFile(`${dataDir}/live.json`)).projects.demo;
    assert.deepEqual(after, before);
  }));

Deno.test("A service on a damaged live.json serves its newest good copy", () =>
  damaged(async (dataDir) => {
    await Deno.writeTextFile(`${dataDir}/live.json`, '{"version": 1, "savedAt": "x"}');
    await startedOn(dataDir, async (svc) => {
      const health = (await svc.get("/health")).body;
      assert.equal(health.status, "degraded");
      assert.equal(health.problems[0].file, "live.json");
      assert.equal(health.problems[0].recoveredFrom, "live.json.1");
      await assertLiveKept(svc);
    });
  }));

Deno.test("A service on a truncated presets.json serves its newest good copy and writes it back", () =>
  damaged(async (dataDir) => {
    const presets = [{
      id: "user-glow",
      kind: "effect",
      name: "Glow",
      type: "Glow",
      builtIn: false,
      parameters: [],
    }];
    await Deno.writeTextFile(`${dataDir}/presets.json.1`, JSON.stringify(presets));
    await Deno.writeTextFile(`${dataDir}/presets.json`, '[{"id": "user-gl');
    await startedOn(dataDir, async (svc) => {
      const health = (await svc.get("/health")).body;
      assert.equal(health.problems[0]?.file, "presets.json", JSON.stringify(health.problems));
      assert.equal(health.problems[0].recoveredFrom, "presets.json.1");
      const { presets: served } = (await svc.get("/api/v1/presets")).body;
      const ids = served.map((p: { presetId: string }) => p.presetId);
      assert.ok(ids.includes("user-glow"), ids.join());
      assert.deepEqual(
        JSON.parse(await Deno.readTextFile(`${dataDir}/presets.json`)),
        JSON.parse(await Deno.readTextFile(`${dataDir}/presets.json.1`)),
      );
    });
  }));

Deno.test("A service on a damaged auth/devices.json starts with an empty registry and says the devices pair again", () =>
  damaged(async (dataDir) => {
    await Deno.writeTextFile(`${dataDir}/auth/devices.json`, '[{"deviceId": 5}]');
    await startedOn(dataDir, async (svc) => {
      const health = (await svc.get("/health")).body;
      assert.equal(health.status, "degraded");
      assert.equal(health.problems[0].file, "auth/devices.json");
      assert.match(health.problems[0].problem, /deviceId/);
      assert.match(health.problems[0].keptAs, /^auth\/devices\.json\.damaged-/);
      assert.deepEqual(svc.service.problems().map((p) => p.file), ["auth/devices.json"]);
      const lines: string[] = [];
      await runStatusCommand(["--data-dir", dataDir], (l) => lines.push(l));
      assert.match(lines[0]!, /: degraded, up /);
      assert.match(
        lines.at(-1)!,
        /^Damaged: auth\/devices\.json: 0\.deviceId: .+ \(no good copy, kept as auth\/devices\.json\.damaged-/,
      );
      await assertLiveKept(svc);
    });
  }));

Deno.test({
  name:
    "main.ts serve on a damaged file: the ready line counts the problems, one log line names the file",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dataDir = await preparedDataDir();
    await Deno.writeTextFile(`${dataDir}/auth/devices.json`, "[");
    const svc = await startServiceProcess([], { dataDir }); // stop() removes the dir
    try {
      assert.equal(svc.ready.problems, 1);
      const lines = svc.stderr().split("\n").filter((l) => l.includes("auth/devices.json"));
      assert.equal(lines.length, 1, svc.stderr());
      assert.match(
        lines[0]!,
        /Damaged file auth\/devices\.json: not JSON: .+; no good copy: the device registry starts empty; every device pairs again; the damaged file is kept as auth\/devices\.json\.damaged-/,
      );
    } finally {
      await svc.stop();
    }
  },
});

Deno.test({
  name:
    "main.ts serve --log-level warn on a project.json with no good copy: one warn line names the file, on one line",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dataDir = await preparedDataDir();
    for (let n = 1; n <= 3; n++) {
      await Deno.remove(`${dataDir}/projects/demo/project.json.${n}`).catch(() => {});
    }
    await flipByte(`${dataDir}/projects/demo/project.json`); // JSON.parse quotes the lines around
    const svc = await startServiceProcess(["--log-level", "warn"], { dataDir });
    try {
      assert.equal(svc.ready.problems, 1);
      const lines = svc.stderr().split("\n").filter((l) =>
        l.includes("projects/demo/project.json")
      );
      assert.equal(lines.length, 1, svc.stderr());
      assert.match(
        lines[0]!,
        /^\S+ WARN {2}Damaged file projects\/demo\/project\.json: not JSON: .+; no good copy: the Project is listed damaged and not loaded/,
      );
      const health = (await svc.get("/health")).body as { problems: Array<{ problem: string }> };
      assert.doesNotMatch(health.problems[0]!.problem, /\n/);
    } finally {
      await svc.stop();
    }
  },
});

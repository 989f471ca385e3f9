import assert from "node:assert/strict";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import { Refusal } from "../../../player/errors.ts";
import { writeJsonAtomic } from "../../../lib/atomic_write.ts";
import { RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import type { StateUpdate } from "../../../protocol/state.ts";
import type { EditApplyParams } from "../../../protocol/edits/mod.ts";
import { fixtureDataDir, fixtureProject } from "../../../tools/testing/fixture.ts";

/** The fixture data dir with a second Project, "second", beside "show". */
async function twoProjects(): Promise<string> {
  const dataDir = await fixtureDataDir();
  const second = { ...fixtureProject(), id: "second", name: "Second Show" };
  await writeJsonAtomic(`${dataDir}/projects/second/project.json`, second);
  await writeJsonAtomic(`${dataDir}/player.json`, { activeProjectId: "show" });
  return dataDir;
}

async function open(dataDir: string) {
  const app = await PlayerApp.open({ dataDir, clock: new VirtualClock(), positionIntervalMs: 0 });
  const updates: StateUpdate[] = [];
  app.onUpdate = (u) => updates.push(u);
  const run = (
    name: string,
    params: Record<string, string> = {},
    projectId: string | null = null,
  ) => app.runAction({ name, params, projectId });
  return { app, updates, run };
}

function transport(app: PlayerApp, projectId: string): string | undefined {
  return app.snapshot().playstates.find((p) => p.projectId === projectId)?.song?.state;
}

Deno.test("PROJECT_SELECT makes an open Project active: reported, saved, actions without projectID go to it", async () => {
  const dataDir = await twoProjects();
  try {
    const { app, updates, run } = await open(dataDir);
    assert.equal(app.snapshot().activeProjectId, "show");
    const outcome = await run("PROJECT_SELECT", { projectID: "second" });
    assert.deepEqual(outcome, { applied: true, message: 'Project "second" is the active Project' });
    assert.equal(app.snapshot().activeProjectId, "second");
    assert.deepEqual(updates.map((u) => [u.updateType, u.projectId, u.data]), [
      ["project", "second", { event: "active-project-changed", activeProjectId: "second" }],
    ]);
    await run("PLAY_IN");
    assert.equal(transport(app, "second"), "playing");
    assert.equal(transport(app, "show"), "stopped");
    await app.close(); // flushes settings
    const saved = JSON.parse(await Deno.readTextFile(`${dataDir}/player.json`));
    assert.equal(saved.activeProjectId, "second");
    const again = await open(dataDir);
    assert.equal(again.app.snapshot().activeProjectId, "second");
    await again.app.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("PROJECT_SELECT of the active Project answers unchanged and reports nothing", async () => {
  const dataDir = await twoProjects();
  const { app, updates, run } = await open(dataDir);
  try {
    const outcome = await run("PROJECT_SELECT", { projectID: "show" });
    assert.deepEqual(outcome, {
      applied: false,
      message: 'Project "show" is the active Project already',
    });
    assert.deepEqual(updates, []);
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("PROJECT_SELECT of no open Project is refused NOT_FOUND naming it; the active one stays", async () => {
  const dataDir = await twoProjects();
  const { app, updates, run } = await open(dataDir);
  try {
    const error = await run("PROJECT_SELECT", { projectID: "nope" }).catch((e) => e);
    assert.ok(error instanceof Refusal);
    assert.equal(error.code, RpcErrorCode.NOT_FOUND);
    assert.equal(error.message, 'Project "nope" does not exist');
    assert.equal(app.snapshot().activeProjectId, "show");
    assert.deepEqual(updates, []);
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("PROJECT_SELECT of a closed or deleted Project is refused with the reason and what to send", async () => {
  const dataDir = await twoProjects();
  const { app, run } = await open(dataDir);
  const edit = (name: string, projectId: string) =>
    app.applyEdits({ projectId, edits: [{ name, params: {} }] } as EditApplyParams);
  try {
    await edit("project.close", "second");
    const closed = await run("PROJECT_SELECT", { projectID: "second" }).catch((e) => e);
    assert.ok(closed instanceof Refusal);
    assert.equal(closed.code, RpcErrorCode.ACTION_REFUSED);
    assert.equal(
      closed.message,
      'Project "second" is closed: open it first with the edit project.open',
    );
    await app.applyEdits(
      {
        projectId: null,
        edits: [{ name: "project.open", params: { projectID: "second" } }],
      } as EditApplyParams,
    );
    await edit("project.delete", "second");
    const deleted = await run("PROJECT_SELECT", { projectID: "second" }).catch((e) => e);
    assert.match(deleted.message, /^Project "second" is deleted: restore it first/);
    assert.equal(app.snapshot().activeProjectId, "show");
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

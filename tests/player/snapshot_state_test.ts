/**
 * `projects.capture` and `projects.replace` (player protocol 1.16): the state of a rig group's
 * snapshots, captured on one player and put whole in place of another's: the same Projects (with
 * the retry keys of their edits), presets and closed Projects; the other's own Project in its
 * trash; every client told by a `full` update; a state that does not read changes nothing.
 */
import assert from "node:assert/strict";
import { openFixture } from "../../tools/testing/fixture.ts";
import { Method } from "../../protocol/methods.ts";
import { RpcError, RpcErrorCode } from "../../protocol/jsonrpc.ts";
import type { EditApplyParams } from "../../protocol/edits/mod.ts";
import { playerMethods } from "../../player/rpc_methods.ts";
import type { PlayerApp } from "../../player/app.ts";
import type { ProjectsState } from "../../protocol/methods.ts";

const edit = (name: string, params: Record<string, unknown>, projectId: string | null) =>
  ({ projectId, edits: [{ name, params }] }) as EditApplyParams;

/** Calls method `name` of `app`'s protocol handlers as the request loop does. */
function call(app: PlayerApp, name: string, params: unknown): Promise<unknown> {
  const session = { isInitialized: true, figures: () => ({}) as never };
  const context = { id: 1, progress: () => {}, signal: new AbortController().signal };
  return Promise.resolve(playerMethods(app, session, {})[name]!(params, context));
}

Deno.test("projects.capture on one player, projects.replace on another: the same Projects, presets, closed ones and retry keys", async () => {
  const [a, b] = [await openFixture(), await openFixture()];
  try {
    await a.app.applyEdits(edit("project.create", { name: "Second" }, null));
    const keyed = { ...edit("song.add", { title: "Encore" }, "show"), idempotencyKey: "log-r42" };
    const first = await a.app.applyEdits(keyed);
    await a.app.applyEdits(
      edit("preset.add", { kind: "effect", name: "Glow", type: "glow" }, null),
    );
    await a.app.applyEdits(edit("project.close", {}, "second"));
    await b.app.applyEdits(edit("project.create", { name: "Only B" }, null));

    const state = await call(a.app, Method.PROJECTS_CAPTURE, {}) as ProjectsState;
    assert.deepEqual(state.projects.map((p) => p.id), ["second", "show"]);
    assert.deepEqual(state.closedProjectIds, ["second"]);
    b.updates.length = 0;
    const answer = await call(b.app, Method.PROJECTS_REPLACE, JSON.parse(JSON.stringify(state)));
    assert.deepEqual(answer, { projects: 2 });

    assert.deepEqual(b.app.snapshot().projects, a.app.snapshot().projects);
    assert.deepEqual(b.app.presets(), a.app.presets());
    const library = (app: PlayerApp) => app.library().map((e) => [e.projectId, e.state]);
    assert.deepEqual(library(b.app), library(a.app));
    assert.ok(b.updates.some((u) => u.updateType === "full"), "clients told");
    const trash = await Array.fromAsync(Deno.readDir(`${b.dataDir}/trash`));
    assert.ok(trash.some((e) => e.name.startsWith("only-b.")), "B's own Project in its trash");
    // The retry key came with the Project: the entry is applied once on B too.
    const again = await b.app.applyEdits(keyed);
    assert.deepEqual(again, first);
    assert.equal(
      b.app.snapshot().projects.find((p) => p.id === "show")!.songs.length,
      a.app.snapshot().projects.find((p) => p.id === "show")!.songs.length,
    );

    // A state that does not read is refused naming what, and changes nothing.
    const bad = { ...state, projects: [{ id: "show", revision: "x" }] };
    const before = b.app.snapshot().projects;
    await assert.rejects(call(b.app, Method.PROJECTS_REPLACE, bad), (error: RpcError) => {
      assert.equal(error.code, RpcErrorCode.INVALID_PARAMS);
      assert.match(error.message, /Project "show"/);
      return true;
    });
    assert.deepEqual(b.app.snapshot().projects, before);
  } finally {
    await a.close();
    await b.close();
  }
});

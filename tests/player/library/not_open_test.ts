import assert from "node:assert/strict";
import { RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import type { DataProblem } from "../../../protocol/library.ts";
import { NotOpenProjects } from "../../../player/library/not_open.ts";
import { fixtureProject } from "../../../tools/testing/fixture.ts";

/** A problem of `projects/<id>/project.json`, recovered from an older copy or not. */
function problemOf(id: string, recoveredFrom: string | null): DataProblem {
  return {
    file: `projects/${id}/project.json`,
    problem: "not valid JSON",
    recoveredFrom,
    keptAs: `projects/${id}/project.json.damaged-1`,
    projectId: id,
    at: "2026-11-29T12:00:00.000Z",
  };
}

Deno.test("NotOpenProjects lists a project.json with no good copy as damaged, tells each problem once", () => {
  const warned: string[] = [];
  const notOpen = new NotOpenProjects((message) => warned.push(message));
  notOpen.noteProblems([problemOf("gone", null), problemOf("saved", "older copy"), null]);
  notOpen.noteProblems([problemOf("gone", null)]);
  assert.equal(warned.length, 2);
  assert.equal(notOpen.problems.length, 2);
  assert.deepEqual(notOpen.entries.map((e) => [e.projectId, e.state]), [["gone", "damaged"]]);
  assert.equal(notOpen.problemOf("saved")?.recoveredFrom, "older copy");
  const refusal = notOpen.missingRefusal("gone");
  assert.equal(refusal.code, RpcErrorCode.NOT_FOUND);
  assert.match(refusal.message, /Project "gone" is damaged \(projects\/gone\/project.json: /);
});

Deno.test("NotOpenProjects: closed Projects are left out of those to open, and refusals say how to get each back", () => {
  const notOpen = new NotOpenProjects(() => {});
  const show = fixtureProject();
  const other = { ...fixtureProject(), id: "other", name: "Other" };
  const open = notOpen.leaveClosed([show, other], ["other"]);
  assert.deepEqual(open.map((p) => p.id), [show.id]);
  assert.deepEqual(notOpen.closedIds(), ["other"]);
  assert.equal(notOpen.isClosed("other"), true);
  assert.match(notOpen.missingRefusal("other").message, /is closed: send project.open/);
  assert.match(notOpen.selectRefusal("other").message, /is closed: open it first/);
  assert.equal(notOpen.selectRefusal("nope").code, RpcErrorCode.NOT_FOUND);
  notOpen.list(show, "deleted");
  assert.match(notOpen.missingRefusal(show.id).message, /is deleted: send project.restore/);
  notOpen.forget("other");
  assert.deepEqual(notOpen.entries.map((e) => [e.projectId, e.state]), [[show.id, "deleted"]]);
  assert.equal(notOpen.missingRefusal(null).message, "No Project is open");
});

Deno.test("NotOpenProjects: with none open, a damaged active Project the settings named is the refusal's reason", () => {
  const notOpen = new NotOpenProjects(() => {});
  notOpen.noteProblems([problemOf("main", null)]);
  assert.equal(notOpen.noProjectRefusal().message, "No Project is open");
  notOpen.wantActive("main");
  assert.match(notOpen.noProjectRefusal().message, /Project "main" is damaged/);
  assert.match(notOpen.missingRefusal(null).message, /Project "main" is damaged/);
  notOpen.wantActive("elsewhere");
  assert.equal(notOpen.noProjectRefusal().message, "No Project is open");
});

import assert from "node:assert/strict";
import type { StateUpdate } from "../../../protocol/state.ts";
import { changedResources } from "../../../server/mcp/resources.ts";

const PROJECT = "app://projects/show";
const song = (id: string) => `${PROJECT}/songs/${id}`;
const SUBSCRIBED = new Set([PROJECT, song("s1"), song("s2"), song("s3"), "app://projects/other"]);
/** Which Songs hold a Clip, as the read model says. */
const songsOfClip = (projectId: string, clipId: string) =>
  projectId === "show" ? ({ c5: ["s2"], c1: ["s1", "s3"] }[clipId] ?? []) : [];

function edited(patch: Record<string, unknown>): StateUpdate {
  return {
    updateType: "project",
    projectId: "show",
    data: { event: "project-edited", revision: 2, edits: ["x"], patch },
  };
}

function changed(...updates: StateUpdate[]): string[] {
  return changedResources(updates, SUBSCRIBED, songsOfClip).sort();
}

Deno.test("changedResources() names the Project and only the Songs an edit changed", () => {
  assert.deepEqual(changed(edited({ songs: { s2: {} } })), [PROJECT, song("s2")]);
  // A Clip's change reaches the Songs that hold it.
  assert.deepEqual(changed(edited({ clips: { c1: {} } })), [PROJECT, song("s1"), song("s3")]);
  assert.deepEqual(
    changed({
      updateType: "clip",
      projectId: "show",
      data: { event: "clip-changed", clipID: "c5", clip: {} },
    }),
    [PROJECT, song("s2")],
  );
  // A new order moves every Song's position; new files change what their Clips show.
  assert.deepEqual(changed(edited({ songOrder: ["s3", "s1", "s2"] })), [
    PROJECT,
    song("s1"),
    song("s2"),
    song("s3"),
  ]);
  assert.deepEqual(changed(edited({ fields: { files: [] } })).length, 4);
  assert.deepEqual(changed(edited({ fields: { name: "New" } })), [PROJECT]);
});

Deno.test("changedResources() ignores what is not a document change; a full update changes everything", () => {
  assert.deepEqual(
    changed({
      updateType: "clip",
      projectId: "show",
      data: { event: "param-changed", clipID: "c1", parameter: "opacity", value: 0.5 },
    }),
    [],
  );
  assert.deepEqual(
    changed({ updateType: "playstate", projectId: "show", data: { event: "clip-triggered" } }),
    [],
  );
  assert.deepEqual(
    changed({ updateType: "full", projectId: null, data: { event: "player-ready" } }),
    [...SUBSCRIBED].sort(),
  );
  assert.deepEqual(changedResources([edited({ songs: { s2: {} } })], new Set(), songsOfClip), []);
});

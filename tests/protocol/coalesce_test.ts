import assert from "node:assert/strict";
import { coalesceUpdates } from "../../protocol/coalesce.ts";
import type { StateUpdate } from "../../protocol/state.ts";

const control = (id: string, value: number): StateUpdate => ({
  updateType: "playstate",
  projectId: "p",
  data: { event: "control-changed", controlID: id, value },
});
const param = (clipID: string, parameter: string, value: number): StateUpdate => ({
  updateType: "clip",
  projectId: "p",
  data: { event: "param-changed", clipID, parameter, value },
});
const edited = (revision: number): StateUpdate => ({
  updateType: "project",
  projectId: "p",
  data: { event: "project-edited", revision, patch: [] },
});

Deno.test("coalesceUpdates keeps each value's latest change, at the place of that change", () => {
  const updates = [
    control("A", 0.1),
    param("c1", "opacity", 0.1),
    control("B", 0.5),
    control("A", 0.2),
    param("c1", "opacity", 0.2),
    param("c1", "volume", 0.7),
  ];
  assert.deepEqual(coalesceUpdates(updates), [
    control("B", 0.5),
    control("A", 0.2),
    param("c1", "opacity", 0.2),
    param("c1", "volume", 0.7),
  ]);
});

Deno.test("coalesceUpdates keeps every Project edit and drops what a full update supersedes", () => {
  assert.deepEqual(coalesceUpdates([edited(1), edited(2)]), [edited(1), edited(2)]);
  const full: StateUpdate = { updateType: "full", projectId: null, data: { event: "reloaded" } };
  assert.deepEqual(coalesceUpdates([control("A", 0.1), full, control("A", 0.3)]), [
    full,
    control("A", 0.3),
  ]);
  const alone = [control("A", 0.1)];
  assert.deepEqual(coalesceUpdates(alone), alone);
});

Deno.test("coalesceUpdates keeps the progress of each import and upload job apart", () => {
  const job = (key: "jobId" | "uploadId", id: string, bytes: number): StateUpdate => ({
    updateType: "project",
    projectId: "p",
    data: { event: key === "jobId" ? "import-progress" : "upload-progress", [key]: id, bytes },
  });
  const updates = [
    job("jobId", "a", 1),
    job("jobId", "b", 1),
    job("uploadId", "u", 1),
    job("jobId", "a", 2),
    job("uploadId", "u", 2),
  ];
  assert.deepEqual(coalesceUpdates(updates), [updates[1], updates[3], updates[4]]);
});

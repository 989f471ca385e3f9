import assert from "node:assert/strict";
import { Core, ImportJobs } from "../../../server/core/mod.ts";
import type { PlayerConnection } from "../../../server/core/mod.ts";
import type { InitializeResult } from "../../../protocol/methods.ts";
import type { Snapshot, StateUpdate } from "../../../protocol/state.ts";
import type { EditApplyResult } from "../../../protocol/edits/mod.ts";
import { fixtureProject } from "../../../tools/testing/fixture.ts";

const copying = (jobId: string, bytes: number, extra: Record<string, unknown> = {}) => ({
  updateType: "project" as const,
  projectId: "show",
  data: {
    event: "import-progress",
    jobId,
    fileId: `file-${jobId}`,
    name: "Big.wav",
    bytes,
    totalBytes: 100,
    done: false,
    ...extra,
  },
});

Deno.test("ImportJobs lists jobs from their progress and drops them when done", () => {
  const jobs = new ImportJobs();
  assert.equal(
    jobs.apply({ updateType: "project", projectId: "show", data: { event: "x" } }),
    false,
  );
  jobs.apply(copying("a", 10));
  jobs.apply({
    updateType: "project",
    projectId: "show",
    data: { event: "upload-progress", uploadId: "u", name: "Up.wav", bytes: 5, totalBytes: null },
  });
  jobs.apply(copying("a", 60));
  assert.deepEqual(
    jobs.list().map(({ startedAt: _s, ...job }) => job),
    [
      {
        jobId: "a",
        projectId: "show",
        name: "Big.wav",
        phase: "copying",
        bytes: 60,
        totalBytes: 100,
        fileId: "file-a",
      },
      {
        jobId: "u",
        projectId: "show",
        name: "Up.wav",
        phase: "uploading",
        bytes: 5,
        totalBytes: null,
        fileId: null,
      },
    ],
  );
  jobs.dropCopies(); // the player restarted: its copies died with it
  assert.deepEqual(jobs.list().map((j) => j.jobId), ["u"]);
  jobs.apply(copying("b", 100, { done: true }));
  jobs.apply({
    updateType: "project",
    projectId: "show",
    data: { event: "upload-progress", uploadId: "u", bytes: 9, done: true, error: "Too large" },
  });
  assert.deepEqual(jobs.list(), []);
});

/** A player connection that records the options of each request. */
function stubPlayer(capabilities: InitializeResult["capabilities"]) {
  const calls: Array<{ method: string; options: unknown }> = [];
  const info: InitializeResult = {
    protocolVersion: "1.0",
    player: { name: "desktop", version: "9" },
    capabilities,
  };
  const player: PlayerConnection = {
    isReady: true,
    info,
    restarts: 0,
    output: null,
    request<T>(method: string, _params?: unknown, options?: unknown): Promise<T> {
      calls.push({ method, options });
      const result: EditApplyResult = {
        projectId: "show",
        revision: 1,
        edits: [],
        changed: { clips: [], songs: [], fields: [], presets: [] },
        history: { undo: 1, redo: 0 },
      };
      return Promise.resolve(result as T);
    },
    onready: () => {},
    onupdates: () => {},
    ondown: () => {},
  };
  const core = new Core(player, { coalesceMs: 0 });
  const snapshot = { projects: [fixtureProject()], playstates: [], live: {}, presets: [] };
  player.onready(snapshot as unknown as Snapshot, info);
  return { core, calls, player };
}

Deno.test("Core.runEdit() lets an import be silent long only when the player reports no progress", async () => {
  const body = { name: "file.import", params: { path: "/tmp/x.wav" } };
  const silent = stubPlayer({ virtualClock: false });
  await silent.core.runEdit(body, { isLocal: true });
  await silent.core.runEdit({ name: "project.rename", params: { name: "X" } }, { isLocal: true });
  assert.deepEqual(silent.calls.map((c) => c.options), [{ quietMs: 600_000 }, {}]);
  silent.core.close();

  const reporting = stubPlayer({ virtualClock: false, progress: true });
  await reporting.core.runEdit(body, { isLocal: true });
  assert.deepEqual(
    reporting.calls.map((c) => c.options),
    [{}],
    "judged by heartbeats and progress",
  );
  reporting.core.close();
});

Deno.test("Core's read model lists the player's imports from its updates (GET /api/v1/imports)", () => {
  const { core, player } = stubPlayer({ virtualClock: false, progress: true });
  const updates: StateUpdate[] = [copying("a", 40)];
  player.onupdates(updates, 0);
  assert.deepEqual(core.queries.imports().map((j) => [j.jobId, j.bytes]), [["a", 40]]);
  player.onupdates([copying("a", 100, { done: true })], 0);
  assert.deepEqual(core.queries.imports(), []);
  core.close();
});

import assert from "node:assert/strict";
import { wavHeader } from "../../player/media/encode.ts";
import { startTestService, type TestService } from "../../tools/testing/service.ts";
import { TestSocket } from "../../tools/testing/ws_client.ts";
import { listDir } from "../../tools/testing/files.ts";
import { until } from "../../tools/testing/until.ts";

/** Big enough that copying takes a few seconds on a small machine (about 2 s at 280 MB/s). */
const SIZE = 512 * 1024 * 1024;

/** A valid WAV of `size` bytes, written at once: a header before a sparse file. */
async function bigWav(dir: string, size: number, name = "Big.wav"): Promise<string> {
  const path = `${dir}/${name}`;
  await Deno.writeFile(path, wavHeader(size - 44, 48_000));
  await Deno.truncate(path, size);
  return path;
}

// deno-lint-ignore no-explicit-any
type Update = any;

/** The import-progress updates a socket received so far (they stay queued for later checks). */
function importUpdates(ws: TestSocket): Update[] {
  return ws.messages.flatMap((m) => Array.isArray(m.payload) ? m.payload : [])
    .filter((u: Update) => u?.data?.event === "import-progress");
}

/** Polls `GET /api/v1/imports` until a copy has started. */
async function copying(svc: TestService): Promise<void> {
  await until(
    "the copy to start",
    async () => (await svc.get("/api/v1/imports")).body.imports?.some((j: Update) => j.bytes > 0),
    20_000,
  );
}

async function openSocket(svc: TestService): Promise<TestSocket> {
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
  } catch (error) {
    await ws.close();
    throw error;
  }
  return ws;
}

Deno.test("file.import of a large file runs beside actions, with progress, on the same player", async () => {
  const svc = await startTestService();
  const dir = await Deno.makeTempDir({ prefix: "cueport-big-" });
  let ws: TestSocket | undefined;
  try {
    ws = await openSocket(svc);
    const path = await bigWav(dir, SIZE);
    const pid = svc.service.supervisor.pid;
    let isSettled = false;
    const importing = svc.post("/api/v1/edit", {
      name: "file.import",
      params: { path, name: "Big.wav" },
    }).catch((error) => ({ status: 0, body: String(error) })).finally(() => (isSettled = true));

    let answeredDuring = 0;
    const statuses = new Set<number>();
    const polled: Update[] = [];
    for (let i = 0; !isSettled; i++) {
      const action = await svc.post("/api/v1/action", {
        name: "OUTPUT_LEVEL_IN",
        params: [(i % 10) / 10],
      });
      answeredDuring++;
      statuses.add(action.status);
      const imports = await svc.get("/api/v1/imports");
      statuses.add(imports.status);
      if (imports.status === 200) polled.push(...imports.body.imports);
    }
    const done = await importing;
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual([...statuses], [200], "every action and poll was answered");
    const fileId = done.body.edits[0].created.fileId;

    // Not a speed test (a loaded machine flakes those): actions answered while the import was
    // still unsettled were not held behind its copy.
    assert.ok(answeredDuring >= 3, `${answeredDuring} actions ran during the import`);
    assert.equal(svc.service.supervisor.pid, pid, "the player was not restarted");
    assert.equal(svc.service.supervisor.restarts, 0);

    const running = polled.find((job) => job.bytes > 0 && job.bytes < SIZE);
    assert.ok(running, `GET /api/v1/imports showed the copy: ${JSON.stringify(polled.at(-1))}`);
    assert.equal(running.projectId, "show");
    assert.equal(running.name, "Big.wav");
    assert.equal(running.totalBytes, SIZE);
    assert.equal(typeof running.jobId, "string");
    assert.deepEqual((await svc.get("/api/v1/imports")).body.imports, [], "finished imports leave");

    let updates: Update[] = [];
    await until("the last import-progress update", () => {
      updates = importUpdates(ws!);
      return updates.some((u) => u.data.done);
    }, 20_000);
    assert.ok(updates.length >= 3, `${updates.length} progress updates`);
    for (const u of updates) {
      assert.equal(u.projectId, "show");
      assert.equal(u.data.jobId, running.jobId);
      assert.equal(u.data.name, "Big.wav");
      assert.equal(u.data.totalBytes, SIZE);
    }
    assert.ok(updates.some((u) => u.data.bytes > 0 && u.data.bytes < SIZE));
    const last = updates.at(-1);
    assert.equal(last.data.done, true);
    assert.equal(last.data.bytes, SIZE);
    assert.equal(last.data.fileId, fileId);

    const media = `${svc.dataDir}/projects/show/media`;
    assert.deepEqual(await listDir(media), ["Big.wav"], "no partial file beside the import");
    assert.equal((await Deno.stat(`${media}/Big.wav`)).size, SIZE);
    const files = (await svc.get("/api/v1/projects/show")).body.files;
    assert.ok(files.some((f: { fileId: string; size: number }) => f.fileId === fileId));
  } finally {
    await ws?.close();
    await svc.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("An import interrupted by a killed player or a stopped service leaves nothing in media/", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "cueport-big-" });
  try {
    const path = await bigWav(dir, SIZE);
    await t.step("the player is killed mid-copy", async () => {
      const svc = await startTestService();
      try {
        const media = `${svc.dataDir}/projects/show/media`;
        const before = await listDir(media);
        const pid = svc.service.supervisor.pid!;
        const importing = svc.post("/api/v1/edit", { name: "file.import", params: { path } })
          .catch((error) => ({ status: 0, body: String(error) }));
        await copying(svc);
        Deno.kill(pid, "SIGKILL");
        assert.equal((await importing).status, 503);
        await until("a new player", () => {
          const s = svc.service.supervisor;
          return s.isReady && s.pid !== pid;
        }, 20_000);
        assert.deepEqual(await listDir(media), before, "the partial copy was removed");
        assert.deepEqual((await svc.get("/api/v1/imports")).body.imports, []);
      } finally {
        await svc.stop();
      }
    });
    await t.step("the service stops mid-copy", async () => {
      const svc = await startTestService();
      try {
        const media = `${svc.dataDir}/projects/show/media`;
        const before = await listDir(media);
        const importing = svc.post("/api/v1/edit", { name: "file.import", params: { path } })
          .catch((error) => ({ status: 0, body: String(error) }));
        await copying(svc);
        await svc.service.shutdown();
        // The player ended mid-copy on the shutdown request: the supervisor did not have to kill it.
        assert.equal(svc.service.supervisor.killedAtStop, false, "the player was killed at stop");
        assert.notEqual((await importing).status, 200);
        assert.deepEqual(await listDir(media), before, "the partial copy was removed");
      } finally {
        await Deno.remove(svc.dataDir, { recursive: true });
      }
    });
    await t.step("the source shrinks while it is copied: refused, nothing kept", async () => {
      const svc = await startTestService();
      let ws: TestSocket | undefined;
      try {
        ws = await openSocket(svc);
        const socket = ws;
        const shrinking = await bigWav(dir, SIZE, "Shrinking.wav");
        const media = `${svc.dataDir}/projects/show/media`;
        const before = await listDir(media);
        const importing = svc.post("/api/v1/edit", {
          name: "file.import",
          params: { path: shrinking },
        }).catch((error) => ({ status: 0, body: { error: { code: "", message: String(error) } } }));
        await until("copying", () => importUpdates(socket).some((u) => u.data.bytes > 0), 20_000);
        await Deno.truncate(shrinking, 1024 * 1024);
        const refused = await importing;
        assert.equal(refused.status, 400, JSON.stringify(refused.body));
        assert.equal(refused.body.error.code, "EDIT_REFUSED");
        assert.match(refused.body.error.message, /changed while it was copied/);
        assert.deepEqual(await listDir(media), before, "the partial copy was removed");
        let failed: Update;
        await until("the failed update", () => {
          failed = importUpdates(socket).find((u) => u.data.done && u.data.error);
          return failed !== undefined;
        }, 20_000);
        assert.match(failed.data.error, /changed while it was copied/);
        assert.deepEqual((await svc.get("/api/v1/imports")).body.imports, []);
      } finally {
        await ws?.close();
        await svc.stop();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

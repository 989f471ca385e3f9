import assert from "node:assert/strict";
import { Beside } from "../../../player/beside.ts";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import { wavHeader } from "../../../player/media/encode.ts";
import type { EditApplyParams } from "../../../protocol/edits/mod.ts";
import type { StateUpdate } from "../../../protocol/state.ts";
import { openFixture } from "../../../tools/testing/fixture.ts";

/** A valid WAV of `size` bytes, written at once (a header before a sparse file). */
async function wav(path: string, size: number): Promise<string> {
  await Deno.writeFile(path, wavHeader(size - 44, 48_000));
  await Deno.truncate(path, size);
  return path;
}

const list = (dir: string) => {
  try {
    return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
  } catch {
    return [];
  }
};

const importing = (path: string, extra: Partial<EditApplyParams> = {}): EditApplyParams => ({
  projectId: null,
  edits: [{ name: "file.import", params: { path } }],
  ...extra,
});

Deno.test("Editor: a batch that imports copies beside the order, reports progress, then commits", async () => {
  const f = await openFixture();
  const source = await wav(await Deno.makeTempFile({ suffix: ".wav" }), 8 * 1024 * 1024);
  try {
    const progress: Array<{ update: StateUpdate; done: number; total: number }> = [];
    const work = f.app.startEdits(importing(source), {
      onProgress: (update, done, total) => progress.push({ update, done, total }),
    });
    assert.ok(work instanceof Beside, "the copy leaves the order");
    // The Project is not changed before the ordered step runs.
    await work.ready;
    assert.equal(f.app.snapshot().projects[0]!.files.length, 1);
    const result = await (await work.ready)();
    const fileId = result.edits[0]!.created!.fileId!;
    assert.ok(f.app.snapshot().projects[0]!.files.some((x) => x.id === fileId));
    assert.equal(progress[0]!.done, 0);
    assert.equal(progress.at(-1)!.done, 8 * 1024 * 1024);
    assert.ok(progress.every((p) => p.total === 8 * 1024 * 1024));
    const jobId = progress[0]!.update.data.jobId;
    const last = f.updates.filter((u) => u.data.event === "import-progress").at(-1)!;
    assert.deepEqual(last.data, {
      event: "import-progress",
      jobId,
      fileId,
      name: source.split("/").pop(),
      bytes: 8 * 1024 * 1024,
      totalBytes: 8 * 1024 * 1024,
      done: true,
    });
    const events = f.events();
    assert.ok(
      events.indexOf("project:project-edited") < events.lastIndexOf("project:import-progress"),
      "the job ends after the edit is reported",
    );
  } finally {
    await Deno.remove(source);
    await f.close();
  }
});

Deno.test("Editor: a batch with one bad file is refused before any byte is copied", async () => {
  const f = await openFixture();
  const dir = await Deno.makeTempDir();
  try {
    const good = await wav(`${dir}/good.wav`, 4 * 1024 * 1024);
    await Deno.writeTextFile(`${dir}/notes.wav`, "not audio at all");
    let reports = 0;
    const refused = await f.app.applyEdits({
      projectId: null,
      edits: [
        { name: "file.import", params: { path: good } },
        { name: "file.import", params: { path: `${dir}/notes.wav` } },
      ],
    }, { onProgress: () => reports++ }).catch((e) => e);
    assert.equal(refused.code, -32003);
    assert.equal(reports, 0);
    assert.deepEqual(list(`${f.dataDir}/projects/show/media`), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await f.close();
  }
});

Deno.test("Editor: an upload is moved, not copied", async () => {
  const f = await openFixture();
  const source = await wav(await Deno.makeTempFile({ dir: f.dataDir, suffix: ".upload" }), 1024);
  try {
    const result = await f.app.applyEdits({
      projectId: null,
      edits: [{ name: "file.import", params: { path: source, name: "Tone.wav" } }],
      isUpload: true,
    });
    assert.match(result.edits[0]!.message, /media\/Tone\.wav/);
    assert.deepEqual(list(`${f.dataDir}/projects/show/media`), ["Tone.wav"]);
    assert.equal(await Deno.stat(source).catch(() => null), null, "the staging file moved");
  } finally {
    await f.close();
  }
});

Deno.test("Editor refuses a fifth import while four copy; stopped copies leave nothing", async () => {
  const f = await openFixture();
  const dir = await Deno.makeTempDir();
  try {
    const controller = new AbortController();
    const works = [];
    for (let i = 0; i < 4; i++) {
      const path = await wav(`${dir}/big${i}.wav`, 256 * 1024 * 1024);
      works.push(f.app.startEdits(importing(path), { signal: controller.signal }));
    }
    assert.throws(
      () => f.app.startEdits(importing(`${dir}/big0.wav`), {}),
      /Too many imports at once: 4 are copying/,
    );
    const ends = works.map((work) => {
      assert.ok(work instanceof Beside);
      return work.ready.catch((e) => e);
    });
    controller.abort(new Error("the connection to the service ended"));
    for (const error of await Promise.all(ends)) {
      assert.match(error.message, /stopped: the connection to the service ended/);
      // Sent on purpose: the service passes its message on (docs/player-protocol.md).
      assert.deepEqual(error.data, { isDeliberate: true });
    }
    assert.deepEqual(list(`${f.dataDir}/projects/show/media`), [], "no partial file is left");
    const failed = f.updates.filter((u) => u.data.event === "import-progress" && u.data.error);
    assert.equal(failed.length, 4, "each job ends with its error");
  } finally {
    await Deno.remove(dir, { recursive: true });
    await f.close();
  }
});

Deno.test("PlayerApp.open() removes partial imports a killed player left, and nothing else", async () => {
  const f = await openFixture();
  const media = `${f.dataDir}/projects/show/media`;
  try {
    await Deno.mkdir(media, { recursive: true });
    await Deno.writeFile(`${media}/.import-0badc0de.partial`, new Uint8Array(10));
    await Deno.writeFile(`${media}/kept.wav`, new Uint8Array(10));
    const again = await PlayerApp.open({ dataDir: f.dataDir, clock: new VirtualClock() });
    await again.close();
    assert.deepEqual(list(media), ["kept.wav"]);
  } finally {
    await f.close();
  }
});

Deno.test("PlayerApp.open() removes the temp files a killed write of player.json or presets.json left", async () => {
  const f = await openFixture();
  try {
    await Deno.writeTextFile(`${f.dataDir}/player.json.deadbeef.tmp`, '{"activeProjectId": "sh');
    await Deno.writeTextFile(`${f.dataDir}/presets.json.0badc0de.tmp`, "[");
    await Deno.writeTextFile(`${f.dataDir}/notes.tmp`, "not ours");
    const again = await PlayerApp.open({ dataDir: f.dataDir, clock: new VirtualClock() });
    await again.close();
    assert.deepEqual(list(f.dataDir).filter((name) => name.endsWith(".tmp")), ["notes.tmp"]);
  } finally {
    await f.close();
  }
});

Deno.test("Editor: an import retried with its key while the first still copies is applied once", async () => {
  const f = await openFixture();
  const source = await wav(await Deno.makeTempFile({ suffix: ".wav" }), 4 * 1024 * 1024);
  try {
    const params = importing(source, { idempotencyKey: "import-1" });
    const mediaDir = `${f.dataDir}/projects/show/media`;
    const before = list(mediaDir).filter((n) => !n.startsWith(".")).length;
    const first = f.app.startEdits(params, {});
    const retry = f.app.startEdits(params, {});
    assert.ok(first instanceof Beside && retry instanceof Beside);
    // The request loop runs the ordered steps in the order they become ready.
    const firstResult = await (await first.ready)();
    const retryResult = await (await retry.ready)();
    assert.deepEqual(retryResult, firstResult);
    const files = f.app.snapshot().projects[0]!.files;
    assert.equal(files.length, 2, "one file imported, not two");
    const media = list(mediaDir).filter((n) => !n.startsWith("."));
    assert.equal(media.length, before + 1, `one copy: ${media.join(", ")}`);
  } finally {
    await Deno.remove(source);
    await f.close();
  }
});

Deno.test("Editor: a seeded import makes the same file id on every player (a rig group's log)", async () => {
  const [a, b] = [await openFixture(), await openFixture()];
  const source = await wav(await Deno.makeTempFile({ suffix: ".wav" }), 4096);
  try {
    const ids = [];
    for (const f of [a, b]) {
      const result = await f.app.applyEdits(importing(source, { seed: "r7" }));
      ids.push(result.edits[0]!.created!.fileId!);
    }
    assert.equal(ids[0], ids[1]);
    assert.match(ids[0]!, /^file-[0-9a-f]{8}$/);
  } finally {
    await Deno.remove(source);
    await a.close();
    await b.close();
  }
});

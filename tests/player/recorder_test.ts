/**
 * The recorder with a stand-in output: the stop answers with what the file
 * holds once its last chunk is written, the figures land in the state as they
 * come, and a recording started while the last one still ends waits for it.
 */
import assert from "node:assert/strict";
import { Recorder, type VideoSink } from "../../player/recorder.ts";
import type { RecordingFigures, RecordingOutcome } from "../../player/output/recording.ts";
import type { StateUpdate } from "../../protocol/state.ts";
import { mountTmpfs } from "../../tools/testing/tmpfs.ts";

const FIGURES: RecordingFigures = {
  bytes: 1_400_000,
  seconds: 12.34,
  videoFrames: 368,
  framesDrawn: 370,
  framesMissed: 2,
  noPictureSince: null,
  error: null,
};

/** An output that records nothing itself: the test says when a stop is done, and how. */
class StandInSink implements VideoSink {
  calls: string[] = [];
  changed: ((figures: RecordingFigures) => void) | null = null;
  #finish: ((outcome: RecordingOutcome) => void) | null = null;

  startRecording(path: string, changed: (figures: RecordingFigures) => void): void {
    this.calls.push(`start ${path.endsWith(".webm")}`);
    this.changed = changed;
  }
  stopRecording(): Promise<RecordingOutcome | null> {
    this.calls.push("stop");
    return new Promise((resolve) => this.#finish = resolve);
  }
  finish(outcome: RecordingOutcome): void {
    this.calls.push("stopped");
    this.#finish!(outcome);
  }
}

Deno.test("Recorder: the stop answers with what the file holds, once it is written", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const sink = new StandInSink();
    let changes = 0;
    const recorder = new Recorder(dir, () => 0, { video: () => sink, changed: () => changes++ });
    assert.match(await recorder.toggle("now"), /^Recording started: recordings\/.*\.webm$/);
    const file = recorder.state.file;
    await recorder.finished();
    sink.changed!({ ...FIGURES, seconds: 5 });
    assert.equal(recorder.state.seconds, 5);
    assert.equal(changes, 1);
    const stopping = recorder.toggle("now");
    assert.equal(recorder.state.state, "idle", "idle at once");
    await Promise.resolve();
    sink.changed!({ ...FIGURES, seconds: 6 });
    assert.equal(recorder.state.seconds, 5, "figures of a recording stopping wait for its end");
    sink.finish({ ...FIGURES, isFileKept: true });
    assert.equal(
      await stopping,
      `Recording stopped: ${file} (12.3 s, 1.4 MB, 368 video frames of 370 drawn, 2 missed)`,
    );
    assert.equal(recorder.state.videoFrames, 368);
    assert.equal(recorder.state.file, file);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Recorder: a stop that finds the recording ended by a full disk answers failed, with why", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const sink = new StandInSink();
    const recorder = new Recorder(dir, () => 0, { video: () => sink });
    await recorder.toggle("now");
    const file = recorder.state.file;
    await recorder.finished();
    const stopping = recorder.toggle("now");
    await Promise.resolve();
    const error =
      "The recording failed at 12.3 s: the disk of /data/recordings is full: free space";
    sink.finish({ ...FIGURES, error, isFileKept: true });
    assert.equal(await stopping, `Recording failed: ${error}; ${file} keeps 12.3 s`);
    assert.equal(recorder.state.error, error);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Recorder: a recording started while the last one ends starts after it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const sink = new StandInSink();
    const recorder = new Recorder(dir, () => 0, { video: () => sink });
    await recorder.toggle("now");
    await recorder.finished();
    const stopping = recorder.toggle("now");
    await recorder.toggle("now");
    assert.equal(recorder.state.state, "recording");
    assert.deepEqual(sink.calls, ["start true", "stop"], "not started while the last one ends");
    sink.finish({
      ...FIGURES,
      videoFrames: 0,
      isFileKept: false,
      error: "Nothing was recorded: x",
    });
    assert.match(
      await stopping,
      /^Recording failed: Nothing was recorded: x; recordings\/.* was not kept$/,
    );
    await recorder.finished();
    assert.deepEqual(sink.calls, ["start true", "stop", "stopped", "start true"]);
    assert.equal(
      recorder.state.state,
      "recording",
      "the outcome of the last one does not end this one",
    );
    assert.equal(recorder.state.error, null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** An update of `bytes` characters, as the recorder logs one line of. */
function update(bytes: number): StateUpdate {
  return {
    updateType: "playstate",
    projectId: "show",
    data: { event: "clip-started", note: "x".repeat(bytes) },
  } as unknown as StateUpdate;
}

Deno.test("Recorder (no output) on a disk that fills: the recording fails, says the disk is full, and never answers stopped", async () => {
  const disk = await mountTmpfs("256k");
  const logs: string[] = [];
  let changes = 0;
  const recorder = new Recorder(disk.dir, () => 0, {
    log: (m) => logs.push(m),
    changed: () => changes++,
  });
  try {
    assert.match(
      String(recorder.toggle("now")),
      /^Recording started: recordings\/recording-.*\.jsonl$/,
    );
    disk.fill();
    // The file's last page takes a few lines more; then the disk is full.
    for (let i = 0; i < 100 && recorder.state.state === "recording"; i++) {
      recorder.log(update(1000));
    }
    assert.equal(recorder.state.state, "idle");
    assert.match(
      recorder.state.error!,
      new RegExp(
        `^The recording failed at 0.0 s: the disk of ${disk.dir}/recordings is full: free space`,
      ),
    );
    assert.equal(changes, 1);
    assert.equal(logs.length, 1);
    // A toggle now starts one, which cannot be written either: it says so.
    assert.match(String(recorder.toggle("now")), /^Recording failed: .* is full: free space/);
    assert.equal(recorder.state.state, "idle");

    // A restarted player resuming it on that disk: idle, failed, said; not "Recording stopped".
    const again = new Recorder(disk.dir, () => 0, { log: (m) => logs.push(m) });
    again.resume({ state: "recording", file: recorder.state.file, startedAt: null, ms: 5000 }, 0);
    assert.equal(again.state.state, "idle");
    assert.match(again.state.error!, /^The recording failed at 5.0 s: the disk of .* is full/);
    again.suspend();
  } finally {
    recorder.suspend();
    await disk.close();
  }
});

Deno.test("Recorder: named by the decision time, its startedAt and play log on the machine's wall clock", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const decided = Date.UTC(2026, 10, 30, 3, 30, 10, 213); // the group's show time
    const wall = Date.UTC(2026, 10, 30, 3, 30, 10, 251); // this machine's clock
    const recorder = new Recorder(dir, () => 0, { namedAt: () => decided, wallNow: () => wall });
    assert.equal(
      await recorder.toggle("now"),
      "Recording started: recordings/recording-2026-11-30T03-30-10-213Z.jsonl",
    );
    assert.equal(recorder.state.startedAt, new Date(wall).toISOString());
    const log = await Deno.readTextFile(`${dir}/${recorder.state.file}`);
    assert.equal(JSON.parse(log.split("\n")[0]!).at, new Date(wall).toISOString());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

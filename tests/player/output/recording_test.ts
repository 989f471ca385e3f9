/**
 * A recording of the output says what it holds: a recording with no picture
 * fails (the toggle says so, `error` is set, no empty file is left), one that
 * gets no picture for 2 s says so at once, the figures count the page's frames,
 * and stopping never reads the file. The player's own path (a browser that never
 * shows its page) and `OutputRecording` against a stand-in page.
 */
import assert from "node:assert/strict";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import type { NormalizedAction } from "../../../protocol/actions.ts";
import type { ToPage } from "../../../protocol/output.ts";
import {
  NO_PICTURE_MS,
  OutputRecording,
  type RecordingFigures,
  type RecordingOptions,
  type RecordingOutcome,
} from "../../../player/output/recording.ts";
import type { RecordingFile } from "../../../player/output/webm_writer.ts";

const SAMPLE = new URL("./_data/mediarecorder.webm", import.meta.url);

Deno.test({
  name: "RECORD_TOGGLE: a recording that got no picture is reported failed, and leaves no file",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // A browser that starts and never shows the page: a machine too busy to load it.
    const dir = await Deno.makeTempDir({ prefix: "cueport-recording-test-" });
    const browser = `${dir}/browser`;
    await Deno.writeTextFile(browser, "#!/bin/sh\nexec sleep 600\n");
    await Deno.chmod(browser, 0o755);
    const logs: string[] = [];
    const app = await PlayerApp.open({
      dataDir: `${dir}/data`,
      clock: new VirtualClock(),
      positionIntervalMs: 0,
      output: { mode: "headless", browser },
      log: (level, message) => logs.push(`${level}: ${message}`),
    });
    const run = async (name: string) => {
      const action: NormalizedAction = { name, params: {}, projectId: null };
      return ((await app.runAction(action)) as { message: string }).message;
    };
    try {
      assert.match(await run("RECORD_TOGGLE"), /^Recording started: recordings\/.*\.webm$/);
      const file = app.appState.recording.file!;
      const message = await run("RECORD_TOGGLE");
      assert.match(
        message,
        /^Recording failed: Nothing was recorded: no output page was connected/,
      );
      assert.ok(message.includes(`${file} was not kept`), message);
      const recording = app.appState.recording;
      assert.equal(recording.state, "idle");
      assert.equal(recording.file, null, "no file is presented as the recording");
      assert.match(recording.error!, /^Nothing was recorded: /);
      assert.equal(recording.videoFrames, 0);
      assert.equal(await exists(`${dir}/data/${file}`), false, "the empty file is gone");
    } finally {
      await app.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** A file that cannot be read, in memory, on a disk of `room` bytes (then full, as Deno says it). */
function memoryFile(
  room = Infinity,
): RecordingFile & { bytes: () => number; isClosed: () => boolean } {
  let length = 0, at = 0, isClosed = false;
  return {
    writeSync(bytes) {
      const n = Math.min(bytes.length, Math.max(room, length) - at);
      if (n <= 0) {
        throw Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });
      }
      at += n;
      length = Math.max(length, at);
      return n;
    },
    seekSync(offset, whence) {
      at = whence === Deno.SeekMode.End ? length + offset : offset;
      return at;
    },
    syncDataSync() {},
    close() {
      isClosed = true;
    },
    bytes: () => length,
    isClosed: () => isClosed,
  };
}

/** An `OutputRecording` on a stand-in page, a manual clock and a manual ticker. */
function recording(options: { isPageOpen?: boolean; isDiskFull?: boolean; room?: number } = {}) {
  let now = 0;
  const sent: ToPage[] = [];
  const logs: string[] = [];
  const changes: RecordingFigures[] = [];
  const removed: string[] = [];
  const lost: RecordingOutcome[] = [];
  const file = memoryFile(options.isDiskFull ? 0 : options.room);
  let isPageOpen = options.isPageOpen ?? true;
  let answer: (() => void) | null = null;
  const settings: RecordingOptions = {
    path: "/data/recordings/r.webm",
    page: {
      isOpen: () => isPageOpen,
      send: (message) => sent.push(message),
      request: <T>(build: (id: number) => ToPage) => {
        sent.push(build(7));
        return new Promise<T>((resolve) => answer = () => resolve({} as T));
      },
    },
    log: (level, message) => logs.push(`${level}: ${message}`),
    changed: (figures) => changes.push(figures),
    lost: (outcome) => lost.push(outcome),
    open: () => file,
    remove: (path) => removed.push(path),
    now: () => now,
    wallNow: () => Date.parse("2026-01-01T00:00:00Z") + now,
    every: () => () => {},
  };
  const r = new OutputRecording(settings);
  return {
    r,
    sent,
    logs,
    changes,
    removed,
    lost,
    file,
    advance: (ms: number) => now += ms,
    openPage: () => isPageOpen = true,
    /** The page sent its last chunk and answered `record-stop`. */
    answer: () => answer?.(),
  };
}

Deno.test("OutputRecording: the page records once one is connected, not before", () => {
  const t = recording({ isPageOpen: false });
  assert.deepEqual(t.sent, []);
  t.openPage();
  t.r.pageOpened();
  assert.deepEqual(t.sent, [{ type: "record-start", id: 0 }]);
});

Deno.test("OutputRecording: no picture for 2 s is said at once, in one line each way", async () => {
  const t = recording();
  t.advance(NO_PICTURE_MS - 1);
  t.r.tick();
  assert.equal(t.r.figures.noPictureSince, null);
  t.advance(1);
  t.r.tick();
  assert.equal(t.r.figures.noPictureSince, "2026-01-01T00:00:00.000Z", "since the start");
  assert.equal(t.changes.at(-1)!.noPictureSince, "2026-01-01T00:00:00.000Z");
  t.advance(1000);
  t.r.tick();
  assert.deepEqual(t.logs, [
    "warn: Output: the recording /data/recordings/r.webm has had no picture for 2.0 s " +
    "(the page drew 0 frames)",
  ]);
  t.r.chunk(await Deno.readFile(SAMPLE));
  assert.equal(t.r.figures.noPictureSince, null);
  assert.equal(t.changes.at(-1)!.noPictureSince, null, "at once, not at the next tick");
  assert.equal(t.logs.length, 2);
  assert.match(t.logs[1]!, /has a picture again/);
});

Deno.test("OutputRecording: its figures count the file and the page's frames", async () => {
  const t = recording();
  t.r.chunk(await Deno.readFile(SAMPLE));
  t.r.report(30, 0);
  t.r.report(12, 18);
  t.r.tick();
  const figures = { bytes: t.file.bytes(), seconds: 1.464, videoFrames: 40 };
  assert.deepEqual(t.changes.at(-1), {
    ...figures,
    framesDrawn: 42,
    framesMissed: 18,
    noPictureSince: null,
    error: null,
  });
  t.r.tick();
  assert.equal(t.changes.length, 1, "unchanged figures are not sent again");
  const stopping = t.r.stop();
  assert.deepEqual(t.sent.at(-1), { type: "record-stop", id: 7 });
  t.answer();
  const outcome = await stopping;
  assert.equal(outcome.isFileKept, true);
  assert.equal(outcome.error, null);
  assert.equal(outcome.videoFrames, 40);
  assert.ok(t.file.isClosed());
  assert.deepEqual(t.removed, []);
});

Deno.test("OutputRecording: one whose page sent no picture fails, and its file goes", async () => {
  const t = recording();
  t.r.report(3, 27);
  const stopping = t.r.stop();
  t.answer();
  const outcome = await stopping;
  assert.equal(outcome.isFileKept, false);
  assert.equal(
    outcome.error,
    "Nothing was recorded: the output page sent no picture (it drew 3 frames meanwhile)",
  );
  assert.deepEqual(t.removed, ["/data/recordings/r.webm"]);
});

Deno.test("OutputRecording: stopping a long recording does not read the file", async () => {
  const t = recording();
  const sample = await Deno.readFile(SAMPLE);
  // A long recording: the sample, then its clusters again and again (the file has no read).
  const clusters = sample.findIndex((_, i) =>
    sample[i] === 0x1f && sample[i + 1] === 0x43 && sample[i + 2] === 0xb6 && sample[i + 3] === 0x75
  );
  t.r.chunk(sample);
  for (let i = 0; i < 200; i++) t.r.chunk(sample.subarray(clusters));
  assert.equal(t.r.figures.videoFrames, 40 * 201);
  const reads: string[] = [];
  const saved = { readFile: Deno.readFile, readFileSync: Deno.readFileSync, open: Deno.open };
  Object.assign(Deno, {
    readFile: (...a: unknown[]) => (reads.push(`readFile ${a[0]}`), saved.readFile(a[0] as string)),
    readFileSync: (...a: unknown[]) => (reads.push(`readFileSync ${a[0]}`), new Uint8Array()),
    open: (...a: unknown[]) => (reads.push(`open ${a[0]}`), saved.open(a[0] as string)),
  });
  try {
    const stopping = t.r.stop();
    t.answer();
    assert.equal((await stopping).isFileKept, true);
  } finally {
    Object.assign(Deno, saved);
  }
  assert.deepEqual(reads, []);
});

Deno.test("OutputRecording: a file it cannot write ends the recording, said, not thrown", async () => {
  const t = recording({ isDiskFull: true });
  t.r.chunk(await Deno.readFile(SAMPLE));
  assert.equal(t.lost.length, 1);
  assert.equal(
    t.lost[0]!.error,
    "Nothing was recorded: the disk of /data/recordings is full: free space on it (old recordings, unused media)",
  );
  assert.match(
    t.logs[0]!,
    /^warn: Output: the recording \/data\/recordings\/r.webm ended: the disk/,
  );
  t.r.chunk(new Uint8Array(8));
  assert.equal(t.lost.length, 1, "once");
});

Deno.test("OutputRecording: a disk that fills ends it with what fit, its error says the disk is full", async () => {
  const t = recording({ room: 17_777 });
  const sample = await Deno.readFile(SAMPLE);
  for (let at = 0; at < sample.length; at += 333) t.r.chunk(sample.slice(at, at + 333));
  assert.equal(t.lost.length, 1);
  const outcome = t.lost[0]!;
  assert.equal(outcome.isFileKept, true);
  assert.equal(outcome.bytes, 17_777);
  assert.equal(outcome.seconds, 0.864, "the last whole frame's time");
  assert.equal(
    outcome.error,
    "The recording failed at 0.9 s: the disk of /data/recordings is full: free space on it " +
      "(old recordings, unused media); the file keeps the 0.9 s written until then",
  );
  assert.deepEqual(t.removed, []);
  assert.equal(t.file.isClosed(), true);
  assert.equal(await t.r.stop(), outcome, "a stop then answers the same outcome");
});

Deno.test("OutputRecording: a page whose socket closed and that loaded again ends it saying so, not that the browser went away", async () => {
  const t = recording(); // recording in the page connected
  t.r.chunk(await Deno.readFile(SAMPLE));
  t.r.pageOpened('its socket closed: code 1001, "No response from ping frame."');
  assert.equal(t.lost.length, 1);
  assert.equal(
    t.lost[0]!.error,
    'The output\'s page went away (its socket closed: code 1001, "No response from ping frame."): the recording ended there',
  );
  assert.match(t.logs.at(-1)!, /ended: the output's page went away \(its socket closed: code 1001/);
  const empty = recording();
  empty.r.pageOpened("its socket closed: code 1006, no close frame");
  assert.equal(
    empty.lost[0]!.error,
    "Nothing was recorded: the output's page went away (its socket closed: code 1006, no close frame) before a picture came",
  );
});

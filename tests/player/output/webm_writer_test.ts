/**
 * The recording's file writer on a real MediaRecorder stream and on a
 * synthetic one: valid WebM at every moment, its duration written in place
 * as chunks come, flushed every 2 s, the file never read; and the reader's
 * counts of video frames and time.
 */
import assert from "node:assert/strict";
import { needs } from "../../../tools/testing/peers.ts";
import { type RecordingFile, WebmFileWriter } from "../../../player/output/webm_writer.ts";
import { WebmReader } from "../../../player/output/webm_reader.ts";

const SAMPLE = new URL("./_data/mediarecorder.webm", import.meta.url);

/** A file in memory that has no read: writes, seeks and flushes are all it can do. */
class MemoryFile implements RecordingFile {
  bytes = new Uint8Array(0);
  at = 0;
  syncs = 0;
  isClosed = false;
  /** Writes that did not go at the end (in place). */
  inPlace: { at: number; length: number }[] = [];

  writeSync(bytes: Uint8Array): number {
    const end = Math.max(this.bytes.length, this.at + bytes.length);
    if (this.at < this.bytes.length) this.inPlace.push({ at: this.at, length: bytes.length });
    const next = new Uint8Array(end);
    next.set(this.bytes);
    next.set(bytes, this.at);
    this.bytes = next;
    this.at += bytes.length;
    return bytes.length;
  }
  seekSync(offset: number, whence: Deno.SeekMode): number {
    this.at = whence === Deno.SeekMode.End ? this.bytes.length + offset : offset;
    return this.at;
  }
  syncDataSync(): void {
    this.syncs++;
  }
  close(): void {
    this.isClosed = true;
  }
}

async function ffprobe(bytes: Uint8Array): Promise<{ duration: number; videoFrames: number }> {
  const path = await Deno.makeTempFile({ suffix: ".webm" });
  try {
    await Deno.writeFile(path, bytes);
    const out = await new Deno.Command("ffprobe", {
      args: [
        ...["-v", "error", "-count_frames", "-select_streams", "v"],
        ...["-show_entries", "stream=nb_read_frames:format=duration", "-of", "json", path],
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const error = new TextDecoder().decode(out.stderr);
    assert.ok(out.success && !error.includes("EBML"), `ffprobe refused it: ${error}`);
    const json = JSON.parse(new TextDecoder().decode(out.stdout));
    return {
      duration: Number(json.format.duration),
      videoFrames: Number(json.streams[0]?.nb_read_frames ?? 0),
    };
  } finally {
    await Deno.remove(path);
  }
}

/** The Duration float of the Info (TimecodeScale units), or null. */
function durationOf(bytes: Uint8Array): number | null {
  for (let i = 0; i < bytes.length - 11; i++) {
    if (bytes[i] === 0x44 && bytes[i + 1] === 0x89 && bytes[i + 2] === 0x88) {
      return new DataView(bytes.buffer, bytes.byteOffset + i + 3, 8).getFloat64(0);
    }
  }
  return null;
}

Deno.test({
  ...needs("ffmpeg"),
  name: "WebmFileWriter gives a MediaRecorder stream its duration in place: valid as it grows",
  async fn() {
    const sample = await Deno.readFile(SAMPLE);
    const file = new MemoryFile();
    const writer = new WebmFileWriter(file);
    const cuts = [4096, 12_000, 20_000];
    let from = 0;
    for (const cut of [...cuts, sample.length]) {
      // Chunks of odd sizes: element headers and blocks are cut anywhere.
      for (let at = from; at < cut; at += 333) {
        writer.write(sample.slice(at, Math.min(cut, at + 333)));
      }
      from = cut;
      // What a player killed now leaves: it plays, as long as its header says.
      const { duration, videoFrames } = await ffprobe(file.bytes);
      assert.ok(videoFrames > 0, `at ${cut} bytes: no video frame`);
      assert.equal(duration, writer.figures.seconds, `at ${cut} bytes`);
    }
    writer.close();
    assert.ok(file.isClosed);
    assert.deepEqual(writer.figures, { bytes: file.bytes.length, seconds: 1.464, videoFrames: 40 });
    const { duration, videoFrames } = await ffprobe(file.bytes);
    assert.equal(duration, 1.464);
    assert.equal(videoFrames, 40, "every frame the writer counted is in the file");
    // Every write after the header went at the end, except the duration's 8 bytes in place.
    assert.ok(file.inPlace.length > 3);
    assert.ok(file.inPlace.every((w) => w.length === 8 && w.at === file.inPlace[0]!.at));
  },
});

/** An EBML element: id bytes, size (one byte, or `unknown` 8 bytes of ones), data. */
function el(id: number[], data: number[], unknown = false): number[] {
  if (unknown) return [...id, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, ...data];
  return [...id, 0x40 | (data.length >> 8), data.length & 0xff, ...data];
}

/** A SimpleBlock of `track` at `relative` (ms, timecode scale 1 ms), keyframe, 3 bytes. */
const block = (track: number, relative: number) =>
  el([0xa3], [0x80 | track, relative >> 8, relative & 0xff, 0x80, 1, 2, 3]);

const cluster = (time: number, blocks: number[][]) =>
  el([0x1f, 0x43, 0xb6, 0x75], [...el([0xe7], [time >> 8, time & 0xff]), ...blocks.flat()], true);

/** A synthetic stream: a Segment of known size (the writer makes it unknown), two tracks. */
function synthetic(): { head: number[]; clusters: number[][] } {
  const ebml = el(
    [0x1a, 0x45, 0xdf, 0xa3],
    el([0x42, 0x82], [...new TextEncoder().encode("webm")]),
  );
  const info = el([0x15, 0x49, 0xa9, 0x66], [
    ...el([0x2a, 0xd7, 0xb1], [0x0f, 0x42, 0x40]), // TimecodeScale 1 ms
    ...el([0x44, 0x89], [0x40, 0x8f, 0x40, 0, 0, 0, 0, 0]), // a Duration (1000): replaced
    ...el([0x4d, 0x80], [0x43]),
  ]);
  const tracks = el([0x16, 0x54, 0xae, 0x6b], [
    ...el([0xae], [...el([0xd7], [1]), ...el([0x83], [2])]), // track 1: audio
    ...el([0xae], [...el([0xd7], [2]), ...el([0x83], [1])]), // track 2: video
  ]);
  const clusters = [
    cluster(0, [block(2, 0), block(1, 0), block(2, 33), block(1, 20)]),
    cluster(1000, [block(2, 0), block(2, 33), block(1, 40)]),
  ];
  const body = [...info, ...tracks];
  // Segment with a known 2-byte size, as a muxer that knows its length writes it.
  const segment = [0x18, 0x53, 0x80, 0x67, 0x40, 0x80];
  return { head: [...ebml, ...segment, ...body], clusters };
}

Deno.test("WebmFileWriter counts video frames and time on a synthetic stream, byte by byte", () => {
  const { head, clusters } = synthetic();
  const file = new MemoryFile();
  const writer = new WebmFileWriter(file);
  for (const byte of [...head, ...clusters.flat()]) writer.write(new Uint8Array([byte]));
  assert.deepEqual(writer.figures, { bytes: file.bytes.length, seconds: 1.04, videoFrames: 4 });
  writer.close();
  assert.equal(durationOf(file.bytes), 1040, "the old Duration gave way to the one written");
  // The Segment's size is unknown now: the Info grew.
  const segmentAt = head.indexOf(0x18);
  assert.deepEqual([...file.bytes.slice(segmentAt + 4, segmentAt + 6)], [0x7f, 0xff]);
});

Deno.test("WebmReader reports each block with its track and time, in any pieces", () => {
  const { head, clusters } = synthetic();
  const stream = new Uint8Array([...head, ...clusters.flat()]);
  for (const piece of [1, 5, 64, stream.length]) {
    const reader = new WebmReader();
    const blocks: string[] = [];
    let video: number[] = [];
    for (let at = 0; at < stream.length; at += piece) {
      for (const event of reader.push(stream.subarray(at, at + piece))) {
        if (event.kind === "block") blocks.push(`${event.track}@${event.ms}`);
        if (event.kind === "tracks") video = event.video;
      }
    }
    assert.deepEqual(video, [2], `pieces of ${piece}`);
    assert.deepEqual(blocks, ["2@0", "1@0", "2@33", "1@20", "2@1000", "2@1033", "1@1040"]);
  }
});

Deno.test("WebmFileWriter flushes to disk at least every 2 s of its clock, and when it closes", () => {
  let now = 0;
  const file = new MemoryFile();
  const writer = new WebmFileWriter(file, { now: () => now });
  const { head, clusters } = synthetic();
  writer.write(new Uint8Array(head));
  writer.write(new Uint8Array(clusters[0]!));
  assert.equal(file.syncs, 0, "not yet due");
  now = 2000;
  writer.write(new Uint8Array(clusters[1]!));
  assert.equal(file.syncs, 1);
  now = 2500;
  writer.write(new Uint8Array(clusters[1]!));
  assert.equal(file.syncs, 1, "500 ms after the last flush");
  writer.close();
  assert.equal(file.syncs, 2, "closing flushes what came since");
});

Deno.test("WebmFileWriter writes a stream it cannot read as it comes, without a duration", () => {
  const file = new MemoryFile();
  const writer = new WebmFileWriter(file);
  const junk = new Uint8Array(64).fill(0);
  writer.write(junk);
  writer.close();
  assert.deepEqual(file.bytes, junk);
  assert.deepEqual(writer.figures, { bytes: 64, seconds: 0, videoFrames: 0 });
});

/** A `MemoryFile` on a disk of `capacity` bytes: what does not fit fails as a full disk does. */
class FullFile extends MemoryFile {
  constructor(readonly capacity: number) {
    super();
  }
  override writeSync(bytes: Uint8Array): number {
    const room = Math.max(this.capacity, this.bytes.length) - this.at;
    if (room <= 0) {
      throw Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });
    }
    return super.writeSync(bytes.subarray(0, room));
  }
}

/** The time of the last packet ffprobe reads (any track), seconds. */
async function lastPacket(bytes: Uint8Array): Promise<number> {
  const path = await Deno.makeTempFile({ suffix: ".webm" });
  try {
    await Deno.writeFile(path, bytes);
    const out = await new Deno.Command("ffprobe", {
      args: ["-v", "error", "-show_entries", "packet=pts_time", "-of", "json", path],
      stdout: "piped",
    }).output();
    const packets = JSON.parse(new TextDecoder().decode(out.stdout)).packets as {
      pts_time: string;
    }[];
    return Math.max(...packets.map((p) => Number(p.pts_time)));
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("WebmFileWriter cut inside a block (its browser killed): the duration is the last whole block's", () => {
  const { head, clusters } = synthetic();
  // A third cluster: one video frame of 40 bytes at 2 s.
  const frame = el([0xa3], [0x82, 0, 0, 0x80, ...new Array(40).fill(7)]);
  const stream = [...head, ...clusters.flat(), ...cluster(2000, [frame])];
  const file = new MemoryFile();
  const writer = new WebmFileWriter(file);
  // The stream ends 10 bytes into that frame's data: it does not play.
  writer.write(new Uint8Array(stream.slice(0, -30)));
  assert.deepEqual(writer.figures, { bytes: file.bytes.length, seconds: 1.04, videoFrames: 4 });
  assert.equal(durationOf(file.bytes), 1040);
  writer.write(new Uint8Array(stream.slice(-30)));
  assert.deepEqual(writer.figures, { bytes: file.bytes.length, seconds: 2, videoFrames: 5 });
  assert.equal(durationOf(file.bytes), 2000);
});

Deno.test({
  ...needs("ffmpeg"),
  name:
    "WebmFileWriter on a disk that fills: what fits is written, its duration in place, ffprobe reads it",
  async fn() {
    const sample = await Deno.readFile(SAMPLE);
    for (const capacity of [9_000, 17_777]) {
      const file = new FullFile(capacity);
      const writer = new WebmFileWriter(file);
      let error: unknown = null;
      for (let at = 0; at < sample.length && !error; at += 333) {
        try {
          writer.write(sample.slice(at, at + 333));
        } catch (e) {
          error = e;
        }
      }
      assert.match(String(error), /No space left/);
      assert.equal(file.bytes.length, capacity, "what fit was written");
      assert.equal(writer.isDurationStale, false);
      writer.close();
      assert.ok(file.isClosed);
      const { duration, videoFrames } = await ffprobe(file.bytes);
      assert.equal(duration, writer.figures.seconds, `at ${capacity} bytes`);
      assert.ok(videoFrames >= writer.figures.videoFrames, `${videoFrames} frames read`);
      const played = await lastPacket(file.bytes);
      // The header says what plays: the last whole frame (~40 ms apart in the sample).
      assert.ok(Math.abs(duration - played) < 0.05, `header ${duration} s, plays ${played} s`);
    }
  },
});

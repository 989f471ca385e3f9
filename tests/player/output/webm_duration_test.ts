import assert from "node:assert/strict";
import { setWebmDuration } from "../../../player/output/webm_duration.ts";

/** An EBML element: id bytes, a one-byte size, data. */
const el = (id: number[], data: number[]) => [...id, 0x80 | data.length, ...data];

/** A MediaRecorder-like file: EBML header, a Segment of unknown size, Info without Duration, a Cluster. */
function recorded(): Uint8Array {
  const ebml = el([0x1a, 0x45, 0xdf, 0xa3], el([0x42, 0x82], [0x77, 0x65, 0x62, 0x6d]));
  const info = el([0x15, 0x49, 0xa9, 0x66], [
    ...el([0x2a, 0xd7, 0xb1], [0x0f, 0x42, 0x40]), // TimecodeScale 1,000,000
    ...el([0x4d, 0x80], [0x43]), // MuxingApp "C"
  ]);
  const cluster = [
    0x1f,
    0x43,
    0xb6,
    0x75,
    0x01,
    0xff,
    0xff,
    0xff,
    0xff,
    0xff,
    0xff,
    0xff,
    0xe7,
    0x81,
    0x00,
  ];
  const segment = [0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
  return new Uint8Array([...ebml, ...segment, ...info, ...cluster]);
}

/** The Duration float of the Info, in TimecodeScale units, or null. */
function durationOf(bytes: Uint8Array): number | null {
  for (let i = 0; i < bytes.length - 11; i++) {
    if (bytes[i] === 0x44 && bytes[i + 1] === 0x89 && bytes[i + 2] === 0x88) {
      return new DataView(bytes.buffer, bytes.byteOffset + i + 3, 8).getFloat64(0);
    }
  }
  return null;
}

Deno.test("setWebmDuration() writes the Duration into the Segment's Info and keeps the rest", () => {
  const before = recorded();
  assert.equal(durationOf(before), null);
  const after = setWebmDuration(before, 2500);
  assert.equal(durationOf(after), 2500);
  // The cluster follows unchanged.
  assert.deepEqual([...after.slice(-15)], [...before.slice(-15)]);
  assert.equal(durationOf(setWebmDuration(after, 1200)), 1200, "an existing Duration is replaced");
});

Deno.test("setWebmDuration() leaves a file it does not understand as it is", () => {
  const other = new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00]);
  assert.equal(setWebmDuration(other, 1000), other);
});

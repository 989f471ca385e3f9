/** The MIDI 1.0 byte codec (`server/midi/bytes.ts`). */
import assert from "node:assert/strict";
import {
  decodeMessages,
  encodeMessage,
  encodeMessages,
  MidiStreamDecoder,
} from "../../../../server/midi/bytes.ts";
import type { MidiMessage } from "../../../../server/midi/messages.ts";

const EVERY: { message: MidiMessage; bytes: number[] }[] = [
  { message: { type: "noteOn", channel: 1, note: 60, velocity: 64 }, bytes: [0x90, 60, 64] },
  { message: { type: "noteOff", channel: 16, note: 61, velocity: 5 }, bytes: [0x8f, 61, 5] },
  { message: { type: "polyPressure", channel: 2, note: 1, pressure: 2 }, bytes: [0xa1, 1, 2] },
  {
    message: { type: "controlChange", channel: 3, controller: 7, value: 127 },
    bytes: [0xb2, 7, 127],
  },
  { message: { type: "programChange", channel: 4, program: 9 }, bytes: [0xc3, 9] },
  { message: { type: "channelPressure", channel: 5, pressure: 3 }, bytes: [0xd4, 3] },
  { message: { type: "pitchBend", channel: 6, value: 8192 }, bytes: [0xe5, 0, 64] },
  { message: { type: "quarterFrame", piece: 7, value: 1 }, bytes: [0xf1, 0x71] },
  { message: { type: "songPosition", beats: 300 }, bytes: [0xf2, 300 & 0x7f, 300 >> 7] },
  { message: { type: "songSelect", song: 3 }, bytes: [0xf3, 3] },
  { message: { type: "clock" }, bytes: [0xf8] },
  { message: { type: "start" }, bytes: [0xfa] },
  { message: { type: "continue" }, bytes: [0xfb] },
  { message: { type: "stop" }, bytes: [0xfc] },
  { message: { type: "activeSensing" }, bytes: [0xfe] },
  { message: { type: "reset" }, bytes: [0xff] },
  {
    message: { type: "sysex", data: Uint8Array.from([0x7e, 0x7f, 0x06, 0x01]) },
    bytes: [0xf0, 0x7e, 0x7f, 0x06, 0x01, 0xf7],
  },
];

Deno.test("bytes: every message round-trips through its bytes", () => {
  for (const { message, bytes } of EVERY) {
    assert.deepEqual([...encodeMessage(message)], bytes, message.type);
    assert.deepEqual(decodeMessages(bytes), [message], message.type);
  }
  const all = EVERY.map((e) => e.message);
  assert.deepEqual(decodeMessages(encodeMessages(all)), all);
});

Deno.test("bytes: a note on with velocity 0 is a note off", () => {
  assert.deepEqual(decodeMessages([0x92, 60, 0]), [
    { type: "noteOff", channel: 3, note: 60, velocity: 0 },
  ]);
});

Deno.test("bytes: running status, real-time inside a message, system common cancelling", () => {
  const bytes = [0xb0, 1, 2, 3, 0xf8, 4, 0xf1, 0x10, 5, 6];
  assert.deepEqual(decodeMessages(bytes), [
    { type: "controlChange", channel: 1, controller: 1, value: 2 },
    { type: "clock" },
    { type: "controlChange", channel: 1, controller: 3, value: 4 },
    { type: "quarterFrame", piece: 1, value: 0 },
    // 5, 6: no running status after a system common message: dropped
  ]);
});

Deno.test("bytes: a stream cut anywhere decodes the same", () => {
  const all = EVERY.map((e) => e.message);
  const bytes = encodeMessages(all);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const decoder = new MidiStreamDecoder();
    const got = [...decoder.push(bytes.subarray(0, cut)), ...decoder.push(bytes.subarray(cut))];
    assert.deepEqual(got, all, `cut at ${cut}`);
  }
});

Deno.test("bytes: garbage decodes to what can be made of it, never throwing", () => {
  assert.deepEqual(decodeMessages([1, 2, 0xf4, 3, 0xf5, 0xf9, 0xfd, 0x90, 1]), []);
  assert.deepEqual(decodeMessages([0xf0, 1, 0x90, 60, 64]), [
    { type: "noteOn", channel: 1, note: 60, velocity: 64 },
  ]);
  const decoder = new MidiStreamDecoder(4);
  assert.deepEqual(decoder.push([0xf0, 1, 2, 3, 4, 5, 0xf7, 0xfa]), [{ type: "start" }]);
  for (let seed = 1; seed < 200; seed++) {
    const random = Array.from({ length: 64 }, (_, i) => (seed * 7919 + i * 104729) % 256);
    decodeMessages(random);
  }
});

Deno.test("bytes: values out of range are clamped on encoding", () => {
  assert.deepEqual([...encodeMessage({ type: "noteOn", channel: 0, note: 200, velocity: -1 })], [
    0x90,
    127,
    0,
  ]);
  assert.deepEqual([...encodeMessage({ type: "pitchBend", channel: 17, value: 99999 })], [
    0xef,
    127,
    127,
  ]);
});

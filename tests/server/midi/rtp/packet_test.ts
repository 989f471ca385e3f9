/** RTP-MIDI packets and their command section, and the AppleMIDI control packets. */
import assert from "node:assert/strict";
import {
  decodeCommands,
  encodeCommands,
  type SysexSegments,
  sysexSegments,
} from "../../../../server/midi/rtp/commands.ts";
import { decodeControl, encodeControl } from "../../../../server/midi/rtp/control.ts";
import { decodePacket, encodePacket } from "../../../../server/midi/rtp/packet.ts";
import type { MidiMessage } from "../../../../server/midi/messages.ts";

const fresh = (): SysexSegments => ({ data: null });

Deno.test("commands: RFC 6295's header forms, delta times and running status", () => {
  // B=0 J=0 Z=0 P=0 LEN=11: note on, delta 0, running status note on, delta 129 (2 octets).
  const section = Uint8Array.from([0x0b, 0x90, 60, 64, 0x00, 62, 64, 0x81, 0x01, 0x80, 60, 0]);
  const got = decodeCommands(section, fresh())!;
  assert.deepEqual(got.messages, [
    { type: "noteOn", channel: 1, note: 60, velocity: 64 },
    { type: "noteOn", channel: 1, note: 62, velocity: 64 },
    { type: "noteOff", channel: 1, note: 60, velocity: 0 },
  ]);
  assert.deepEqual(got.deltas, [0, 0, 129]);
  assert.equal(got.hasJournal, false);
  // Z=1: the first command has a delta time too; B=1: a 12-bit length.
  const long = Uint8Array.from([0xa0, 3, 0x05, 0xc0, 3, 0xee]); // 0xee: past LEN
  const z = decodeCommands(long, fresh())!;
  assert.deepEqual(z.messages, [{ type: "programChange", channel: 1, program: 3 }]);
  assert.deepEqual(z.deltas, [5]);
  assert.equal(z.hasJournal, false);
});

Deno.test("commands: encoding round-trips, with running status and the long header", () => {
  const messages: MidiMessage[] = [
    { type: "controlChange", channel: 1, controller: 1, value: 1 },
    { type: "controlChange", channel: 1, controller: 2, value: 2 },
    { type: "quarterFrame", piece: 0, value: 5 },
    { type: "controlChange", channel: 1, controller: 3, value: 3 },
    { type: "sysex", data: Uint8Array.from([1, 2, 3]) },
    { type: "noteOn", channel: 2, note: 5, velocity: 6 },
  ];
  const bytes = encodeCommands(messages, { hasJournal: true });
  assert.equal(bytes[0]! & 0x80, 0x80); // more than 15 octets: B
  assert.equal(bytes[0]! & 0x40, 0x40); // J
  // The second CC leaves its status out (running status).
  assert.deepEqual([...bytes.subarray(2, 9)], [0xb0, 1, 1, 0, 2, 2, 0]);
  const got = decodeCommands(bytes, fresh())!;
  assert.deepEqual(got.messages, messages);
  assert.equal(got.hasJournal, true);
  assert.equal(got.end, bytes.length);
});

Deno.test("commands: a system exclusive in segments across packets, and cancelled", () => {
  const sysex = fresh();
  const one = decodeCommands(Uint8Array.from([4, 0xf0, 1, 2, 0xf0]), sysex)!;
  assert.deepEqual(one.messages, []);
  const two = decodeCommands(Uint8Array.from([5, 0xf7, 3, 0xf8, 4, 0xf0]), sysex)!;
  assert.deepEqual(two.messages, [{ type: "clock" }]); // real-time inside the segment
  const three = decodeCommands(Uint8Array.from([3, 0xf7, 5, 0xf7]), sysex)!;
  assert.deepEqual(three.messages, [{ type: "sysex", data: Uint8Array.from([1, 2, 3, 4, 5]) }]);
  decodeCommands(Uint8Array.from([3, 0xf0, 9, 0xf0]), sysex);
  decodeCommands(Uint8Array.from([2, 0xf7, 0xf4]), sysex); // cancelled
  assert.deepEqual(decodeCommands(Uint8Array.from([3, 0xf7, 5, 0xf7]), sysex)!.messages, []);
});

Deno.test("commands: a long system exclusive sent in segments joins back whole", () => {
  const data = Uint8Array.from({ length: 2000 }, (_, i) => i % 128);
  const segments = sysexSegments(data);
  assert.equal(segments.length, 3);
  assert.deepEqual([segments[0]!.bytes[0], segments[0]!.bytes.at(-1)], [0xf0, 0xf0]);
  assert.deepEqual([segments[1]!.bytes[0], segments[1]!.bytes.at(-1)], [0xf7, 0xf0]);
  assert.deepEqual([segments[2]!.bytes[0], segments[2]!.bytes.at(-1)], [0xf7, 0xf7]);
  const sysex = fresh();
  const got = segments.flatMap((s) =>
    decodeCommands(encodeCommands([s], { hasJournal: false }), sysex)!.messages
  );
  assert.deepEqual(got, [{ type: "sysex", data }]);
});

Deno.test("packet: RTP header fields, the journal flag, and round trips", () => {
  const messages: MidiMessage[] = [{ type: "noteOn", channel: 1, note: 60, velocity: 64 }];
  const journal = Uint8Array.from([0x20, 0x12, 0x34, 0x00, 0x06, 0x80, 5, 0, 0]);
  const bytes = encodePacket({
    sequence: 0xfffe,
    timestamp: 123456,
    ssrc: 0xdeadbeef,
    messages,
    journal,
  });
  assert.deepEqual([...bytes.subarray(0, 2)], [0x80, 0x61]);
  const got = decodePacket(bytes, fresh())!;
  assert.equal(got.sequence, 0xfffe);
  assert.equal(got.timestamp, 123456);
  assert.equal(got.ssrc, 0xdeadbeef);
  assert.deepEqual(got.messages, messages);
  assert.deepEqual(got.journal, { checkpoint: 0x1234, channels: [{ channel: 1, program: 5 }] });
});

Deno.test("packet and control: malformed input is null, never a throw", () => {
  for (let seed = 0; seed < 500; seed++) {
    const length = seed % 48;
    const random = Uint8Array.from(
      { length },
      (_, i) => (seed * 2654435761 + i * 40503) >>> (i % 24) & 0xff,
    );
    if (length > 0) random[0] = seed % 2 ? 0x80 | (random[0]! & 0x3f) : 0xff;
    if (length > 1 && seed % 2 === 0) random[1] = 0xff;
    decodePacket(random, fresh());
    decodeControl(random);
  }
  assert.equal(decodePacket(Uint8Array.from([0x80, 0x61, 0, 1]), fresh()), null);
  assert.equal(
    decodePacket(Uint8Array.from([0x80, 0x61, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 9]), fresh()),
    null,
  );
  assert.equal(decodeControl(Uint8Array.from([0xff, 0xff, 0x49, 0x4e, 0, 0, 0, 2])), null);
});

Deno.test("control: IN, OK, NO, BY, CK and RS as Apple's session protocol lays them out", () => {
  const invitation = encodeControl({
    command: "IN",
    token: 0x01020304,
    ssrc: 0x0a0b0c0d,
    name: "Mac",
  });
  assert.deepEqual([...invitation], [
    0xff,
    0xff,
    0x49,
    0x4e,
    0,
    0,
    0,
    2,
    1,
    2,
    3,
    4,
    0x0a,
    0x0b,
    0x0c,
    0x0d,
    0x4d,
    0x61,
    0x63,
    0,
  ]);
  assert.deepEqual(decodeControl(invitation), {
    command: "IN",
    token: 0x01020304,
    ssrc: 0x0a0b0c0d,
    name: "Mac",
  });
  for (const command of ["OK", "NO", "BY"] as const) {
    const packet = { command, token: 7, ssrc: 8, name: command === "BY" ? "" : "x" };
    assert.deepEqual(decodeControl(encodeControl(packet)), packet);
  }
  const ck = {
    command: "CK" as const,
    ssrc: 9,
    count: 1,
    timestamps: [1n, 2n, 2n ** 40n] as [bigint, bigint, bigint],
  };
  const ckBytes = encodeControl(ck);
  assert.equal(ckBytes.length, 36);
  assert.deepEqual(decodeControl(ckBytes), ck);
  const rs = encodeControl({ command: "RS", ssrc: 9, sequence: 0xabcd });
  assert.deepEqual([...rs], [0xff, 0xff, 0x52, 0x53, 0, 0, 0, 9, 0xab, 0xcd, 0, 0]);
  assert.deepEqual(decodeControl(rs), { command: "RS", ssrc: 9, sequence: 0xabcd });
});

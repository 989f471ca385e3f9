/**
 * The recovery journal: its layout as RFC 6295 draws it (chapters P, C, N;
 * the system journal and chapters M, W skipped), the sending side's history
 * and trimming (RFC 4696), and the receiving side's recovery, exactly once.
 */
import assert from "node:assert/strict";
import { decodeJournal, encodeJournal, type Journal } from "../../../../server/midi/rtp/journal.ts";
import { JournalReceiver } from "../../../../server/midi/rtp/journal_receiver.ts";
import { JournalSender } from "../../../../server/midi/rtp/journal_sender.ts";

/**
 * A journal laid out field by field after RFC 6295's figures: the journal
 * header (s.5), one channel journal (s.5.2) on channel 3 with chapters P
 * (A.2), C (A.3) and N (A.6).
 */
const RFC_LAYOUT = Uint8Array.from([
  // S=0 Y=0 A=1 H=0 TOTCHAN=0 | checkpoint packet seqnum 0x0102
  0b0010_0000,
  0x01,
  0x02,
  // channel journal: S=0 CHAN=2 (channel 3) H=0 LENGTH=17 | TOC: P C . . N . . .
  0b0_0010_0_00,
  17,
  0b1100_1000,
  // chapter P: S=0 PROGRAM=42 | B=0 BANK-MSB=0 | X=0 BANK-LSB=0
  42,
  0,
  0,
  // chapter C: S=0 LEN=1 (two logs) | S=0 NUMBER=7, A=0 VALUE=99 | S=0 NUMBER=64, A=0 VALUE=0
  1,
  7,
  99,
  64,
  0,
  // chapter N: B=0 LEN=1 | LOW=7 HIGH=8 | note log: S=0 NOTENUM=60, Y=1 VELOCITY=64
  1,
  0x78,
  60,
  0x80 | 64,
  // OFFBITS for notes 56-63 and 64-71: note 62 and note 64 ended
  0b0000_0010,
  0b1000_0000,
]);

const RFC_JOURNAL: Journal = {
  checkpoint: 0x0102,
  channels: [{
    channel: 3,
    program: 42,
    controllers: [{ controller: 7, value: 99 }, { controller: 64, value: 0 }],
    notes: { on: [{ note: 60, velocity: 64, isPlayable: true }], off: [62, 64] },
  }],
};

Deno.test("journal: RFC 6295's layout of chapters P, C and N decodes, and encodes back", () => {
  assert.equal(RFC_LAYOUT.length, 3 + 17);
  assert.deepEqual(decodeJournal(RFC_LAYOUT), RFC_JOURNAL);
  assert.deepEqual([...encodeJournal(RFC_JOURNAL)!], [...RFC_LAYOUT]);
});

Deno.test("journal: the system journal and chapters M and W are skipped by their lengths", () => {
  const bytes = Uint8Array.from([
    // S=1 Y=1 A=1 TOTCHAN=1 | checkpoint 7
    0b1110_0001,
    0,
    7,
    // system journal: S D V Q F X = 0, LENGTH=4 (header + 2 octets of chapters)
    0,
    4,
    0xaa,
    0xbb,
    // channel 1: LENGTH=3+4+2+2, TOC: M W N
    0,
    11,
    0b0011_1000,
    // chapter M: LENGTH=4, 2 octets of it skipped
    0,
    4,
    0x11,
    0x22,
    // chapter W: 2 octets
    0x40,
    0x40,
    // chapter N: LEN=0, LOW=15 HIGH=0: no note logs, no OFFBITS
    0,
    0xf0,
    // channel 16: LENGTH=3+3, TOC: P
    0b0_1111_0_00,
    6,
    0x80,
    0x80 | 1,
    0,
    0,
  ]);
  assert.deepEqual(decodeJournal(bytes), {
    checkpoint: 7,
    channels: [{ channel: 1, notes: { on: [], off: [] } }, { channel: 16, program: 1 }],
  });
});

Deno.test("journal: cut short or inconsistent, it decodes as null", () => {
  for (let cut = 0; cut < RFC_LAYOUT.length; cut++) {
    assert.equal(decodeJournal(RFC_LAYOUT.subarray(0, cut)), null, `cut at ${cut}`);
  }
  const wrongLength = Uint8Array.from(RFC_LAYOUT);
  wrongLength[4] = 2; // a channel journal shorter than its own header
  assert.equal(decodeJournal(wrongLength), null);
});

Deno.test("journal sender: codes the history since the checkpoint, trimmed by feedback", () => {
  const sender = new JournalSender(0xfffe); // the sequence numbers wrap on the way
  const first = sender.next([
    { type: "programChange", channel: 1, program: 4 },
    { type: "noteOn", channel: 1, note: 60, velocity: 100 },
  ]);
  assert.equal(first.sequence, 0xffff);
  assert.equal(first.journal, null); // nothing before it
  const second = sender.next([{ type: "controlChange", channel: 2, controller: 7, value: 10 }]);
  assert.equal(second.sequence, 0);
  assert.deepEqual(decodeJournal(second.journal!), {
    checkpoint: 0xffff,
    channels: [{
      channel: 1,
      program: 4,
      notes: { on: [{ note: 60, velocity: 100, isPlayable: true }], off: [] },
    }],
  });
  const third = sender.next([
    { type: "noteOff", channel: 1, note: 60, velocity: 0 },
    { type: "controlChange", channel: 2, controller: 7, value: 11 },
  ]);
  assert.equal(decodeJournal(third.journal!)!.channels.length, 2);
  sender.acknowledge(first.sequence); // the first packet arrived
  assert.deepEqual(sender.journal(), {
    checkpoint: 0,
    channels: [
      { channel: 1, notes: { on: [], off: [60] } },
      { channel: 2, controllers: [{ controller: 7, value: 11 }] },
    ],
  });
  sender.acknowledge(third.sequence);
  assert.deepEqual(sender.journal(), { checkpoint: 2, channels: [] });
  assert.equal(sender.next([]).journal, null);
  sender.acknowledge(0x1234); // never sent: ignored
  assert.equal(sender.journal().checkpoint, 2);
});

Deno.test("journal receiver: a gap with a journal recovers what was lost, exactly once", () => {
  const receiver = new JournalReceiver();
  const arrive = (sequence: number, journal: Journal | null) => receiver.arrive(sequence, journal);
  assert.deepEqual(arrive(10, null), { isFresh: true, lost: 0, recovered: [] });
  receiver.observe([
    { type: "noteOn", channel: 3, note: 62, velocity: 90 },
    { type: "noteOn", channel: 3, note: 64, velocity: 90 },
    { type: "controlChange", channel: 3, controller: 64, value: 0 },
  ]);
  // Packets 11 and 12 were lost; 13 carries RFC_JOURNAL's chapters, its history from packet 10.
  const history = { ...RFC_JOURNAL, checkpoint: 10 };
  const gap = arrive(13, history);
  assert.equal(gap.lost, 2);
  assert.deepEqual(gap.recovered, [
    { type: "programChange", channel: 3, program: 42 },
    { type: "controlChange", channel: 3, controller: 7, value: 99 },
    { type: "noteOff", channel: 3, note: 62, velocity: 0 },
    { type: "noteOff", channel: 3, note: 64, velocity: 0 },
    { type: "noteOn", channel: 3, note: 60, velocity: 64 },
  ]);
  // Packet 15 after another loss carries the same history: nothing twice.
  assert.deepEqual(arrive(15, history), { isFresh: true, lost: 1, recovered: [] });
  // A late or repeated packet is not delivered.
  assert.deepEqual(arrive(14, history), { isFresh: false, lost: 0, recovered: [] });
  assert.deepEqual(arrive(15, null).isFresh, false);
  // No loss: the journal is not read.
  assert.deepEqual(arrive(16, { checkpoint: 0, channels: [{ channel: 1, program: 1 }] }), {
    isFresh: true,
    lost: 0,
    recovered: [],
  });
  // Across the wrap of sequence numbers.
  const wrap = new JournalReceiver();
  wrap.arrive(0xffff, null);
  assert.equal(wrap.arrive(1, null).lost, 1);
});

Deno.test("journal: chapter N's note log count at its limits (RFC 6295 A.6)", () => {
  const sounding = (count: number) =>
    Array.from(
      { length: count },
      (_, note) => ({ note, velocity: 1 + (note % 100), isPlayable: true }),
    );
  const chapterN = (count: number) => {
    const bytes = encodeJournal({
      checkpoint: 1,
      channels: [{ channel: 1, notes: { on: sounding(count), off: [] } }],
    })!;
    return [bytes[6]!, bytes[7]!];
  };
  // 127 logs and no OFFBITS: LEN=127 with LOW=15 HIGH=1, since LOW=15 HIGH=0 would mean 128 logs.
  assert.deepEqual(chapterN(127), [127, 0xf1]);
  assert.deepEqual(chapterN(1), [1, 0xf1]);
  // 128 logs: LEN=127, LOW=15, HIGH=0.
  assert.deepEqual(chapterN(128), [127, 0xf0]);
  for (const count of [1, 127, 128]) {
    const journal: Journal = {
      checkpoint: 1,
      channels: [{ channel: 1, notes: { on: sounding(count), off: [] } }],
    };
    assert.equal(decodeJournal(encodeJournal(journal)!)!.channels[0]!.notes!.on.length, count);
    assert.deepEqual(decodeJournal(encodeJournal(journal)!), journal);
  }
});

Deno.test("journal receiver: a re-press lost with its release is played again (off, then on)", () => {
  const receiver = new JournalReceiver();
  receiver.arrive(100, null);
  receiver.observe([
    { type: "noteOn", channel: 1, note: 60, velocity: 90 },
    { type: "controlChange", channel: 1, controller: 20, value: 0 },
  ]);
  receiver.arrive(101, null); // nothing in it; feedback then trims the sender's history to 102
  // Lost: 102 (note off 60, CC 20 = 127) and 103 (note on 60, CC 20 = 0). 104's journal, checkpoint 102:
  const journal: Journal = {
    checkpoint: 102,
    channels: [{
      channel: 1,
      controllers: [{ controller: 20, value: 0 }],
      notes: { on: [{ note: 60, velocity: 70, isPlayable: true }], off: [] },
    }],
  };
  assert.deepEqual(receiver.arrive(104, journal).recovered, [
    // Chapter C keeps only the latest value: the 127 between is beyond what it can tell.
    { type: "controlChange", channel: 1, controller: 20, value: 0 },
    { type: "noteOff", channel: 1, note: 60, velocity: 0 },
    { type: "noteOn", channel: 1, note: 60, velocity: 70 },
  ]);
  // The same history again after another loss: the note on held now is 104's, nothing twice.
  assert.deepEqual(receiver.arrive(106, journal).recovered, []);
  // A note on we hold from inside the history may be the log's own: left alone.
  const held = new JournalReceiver();
  held.arrive(102, null);
  held.observe([{ type: "noteOn", channel: 1, note: 60, velocity: 70 }]);
  assert.deepEqual(held.arrive(104, journal).recovered, [
    { type: "controlChange", channel: 1, controller: 20, value: 0 },
  ]);
});

Deno.test("journal receiver: resyncs after consecutive packets out of the window; a checkpoint after the loss is not read", () => {
  const receiver = new JournalReceiver();
  receiver.arrive(10, null);
  // The sender restarted its numbering: one packet far off is dropped, the next in its run resyncs.
  assert.deepEqual(receiver.arrive(40_000, null), { isFresh: false, lost: 0, recovered: [] });
  assert.deepEqual(receiver.arrive(40_001, null), { isFresh: true, lost: 0, recovered: [] });
  assert.equal(receiver.last, 40_001);
  assert.deepEqual(receiver.arrive(40_002, null).isFresh, true);
  // A single stray one far off does not move the stream.
  assert.equal(receiver.arrive(9_000, null).isFresh, false);
  assert.equal(receiver.arrive(40_003, null).lost, 0);
  // Packets 40,004 to 40,005 lost, but the journal's history starts at 40,005: it does not cover 40,004.
  const late: Journal = { checkpoint: 40_005, channels: [{ channel: 1, program: 9 }] };
  assert.deepEqual(receiver.arrive(40_006, late), { isFresh: true, lost: 2, recovered: [] });
});

import assert from "node:assert/strict";
import type { MidiMessage, MidiSource } from "../../../server/midi/messages.ts";
import {
  type MtcRate,
  timecodeInput,
  TimecodeReader,
  type TimecodeSample,
} from "../../../server/midi/timecode.ts";
import { formatTimecode, timecodeSeconds, timecodeToSeconds } from "../../../protocol/timecode.ts";
import { VirtualClock } from "../../../player/clock.ts";

const SOURCE: MidiSource = { kind: "rtp", address: "10.0.0.2:5004", name: "DAW" };
const RATE_BITS: Record<number, number> = { 24: 0, 25: 1, 29.97: 2, 30: 3 };

type Time = { hours: number; minutes: number; seconds: number; frames: number };

/** The eight quarter frames of `time` at `rate`, pieces 0-7 (MTC spec, table of piece layout). */
function pieces(time: Time, rate: MtcRate): MidiMessage[] {
  const values = [
    time.frames & 0xf,
    time.frames >> 4,
    time.seconds & 0xf,
    time.seconds >> 4,
    time.minutes & 0xf,
    time.minutes >> 4,
    time.hours & 0xf,
    (time.hours >> 4) | (RATE_BITS[rate]! << 1),
  ];
  return values.map((value, piece) => ({ type: "quarterFrame", piece, value }));
}

/** A reader on a virtual clock, fed one message per quarter frame at `rate`. */
function setup(stopAfterMs = 250) {
  const clock = new VirtualClock(1000);
  const samples: TimecodeSample[] = [];
  const reader = new TimecodeReader({ clock, send: (s) => samples.push(s), stopAfterMs });
  const play = (messages: MidiMessage[], rate: MtcRate) => {
    for (const m of messages) {
      clock.advance(1000 / rate / 4);
      reader.feed([m], SOURCE);
    }
  };
  return { clock, samples, reader, play };
}

function fullFrame(time: Time, rate: MtcRate): MidiMessage {
  const hh = (RATE_BITS[rate]! << 5) | time.hours;
  const data = [0x7f, 0x7f, 0x01, 0x01, hh, time.minutes, time.seconds, time.frames];
  return { type: "sysex", data: new Uint8Array(data) };
}

const T = (hours: number, minutes: number, seconds: number, frames: number): Time => ({
  hours,
  minutes,
  seconds,
  frames,
});

Deno.test("timecodeSeconds() counts frames at each rate, drop-frame skipping 2 a minute", () => {
  assert.equal(timecodeSeconds(T(1, 0, 0, 0), 25), 3600);
  assert.equal(timecodeSeconds(T(0, 0, 1, 12), 24), 1.5);
  assert.equal(timecodeSeconds(T(0, 0, 0, 15), 30), 0.5);
  // 00:01:00;02 is frame 1800 at 29.97 drop-frame (frames 00 and 01 of minute 1 do not exist).
  assert.equal(timecodeSeconds(T(0, 1, 0, 2), 29.97), 1800 * 1001 / 30000);
  // 00:10:00;00 is frame 17982: the tenth minute drops nothing.
  assert.equal(timecodeSeconds(T(0, 10, 0, 0), 29.97), 17982 * 1001 / 30000);
});

Deno.test("timecodeToSeconds() reads hh:mm:ss:ff and refuses frames past the rate", () => {
  assert.equal(timecodeToSeconds("01:02:00:00", 25), 3720);
  assert.equal(timecodeToSeconds("00:00:01:12", 24), 1.5);
  assert.throws(() => timecodeToSeconds("00:00:00:25", 25), /frames go 00-24/);
  assert.throws(() => timecodeToSeconds("1:02:00:00", 25), /not a timecode/);
});

Deno.test("formatTimecode() writes hh:mm:ss:ff, and ; before drop-frame frames", () => {
  assert.equal(formatTimecode(3723.5, 25), "01:02:03:12");
  assert.equal(formatTimecode(1800 * 1001 / 30000, 29.97), "00:01:00;02");
  assert.equal(formatTimecode(17982 * 1001 / 30000, 29.97), "00:10:00;00");
});

for (const rate of [24, 25, 30] as const) {
  Deno.test(`TimecodeReader reads forward quarter frames at ${rate} fps, two frames on`, () => {
    const { samples, play } = setup();
    play(pieces(T(1, 2, 3, 4), rate), rate);
    assert.equal(samples.length, 1);
    const s = samples[0]!;
    assert.equal(s.rate, rate);
    assert.equal(s.motion, "forward");
    assert.ok(Math.abs(s.seconds - (3723 + 6 / rate)) < 1e-9, `${s.seconds}`);
    assert.ok(Math.abs(s.at - (1000 + 2000 / rate)) < 1e-9);
  });
}

Deno.test("TimecodeReader reads 29.97 drop-frame quarter frames, two frames on", () => {
  const { samples, play } = setup();
  play(pieces(T(0, 1, 0, 2), 29.97), 29.97);
  assert.equal(samples[0]!.rate, 29.97);
  assert.ok(Math.abs(samples[0]!.seconds - (1800 + 2) * 1001 / 30000) < 1e-9);
  assert.deepEqual(timecodeInput(samples[0]!, samples[0]!.at + 35), {
    seconds: samples[0]!.seconds,
    rate: 29.97,
    motion: "forward",
    age: 35,
  });
});

Deno.test("TimecodeReader waits for a whole run: a start mid-sequence gives nothing until piece 7 after 0", () => {
  const { samples, play } = setup();
  play(pieces(T(0, 0, 10, 0), 25).slice(3), 25); // pieces 3-7: no piece 0 yet
  assert.equal(samples.length, 0);
  play(pieces(T(0, 0, 10, 2), 25), 25);
  assert.equal(samples.length, 1);
  assert.ok(Math.abs(samples[0]!.seconds - (10 + 4 / 25)) < 1e-9);
});

Deno.test("TimecodeReader reads backward quarter frames at piece 0, without the offset", () => {
  const { samples, play } = setup();
  play(pieces(T(0, 0, 20, 10), 30).reverse(), 30);
  assert.equal(samples.length, 1);
  assert.equal(samples[0]!.motion, "backward");
  assert.ok(Math.abs(samples[0]!.seconds - (20 + 10 / 30)) < 1e-9);
});

Deno.test("TimecodeReader drops a run with a missing piece", () => {
  const { samples, play } = setup();
  const run = pieces(T(0, 0, 5, 0), 25);
  play([...run.slice(0, 4), ...run.slice(5)], 25);
  assert.equal(samples.length, 0);
});

Deno.test("TimecodeReader reads a full frame as a locate at that very frame", () => {
  const { samples, reader } = setup();
  reader.feed([fullFrame(T(1, 2, 0, 0), 25)], SOURCE);
  assert.deepEqual(samples, [{ seconds: 3720, rate: 25, at: 1000, motion: "locate" }]);
});

Deno.test("TimecodeReader passes every locate, even within a frame of another sample", () => {
  const { samples, reader, play, clock } = setup();
  reader.feed([fullFrame(T(1, 2, 0, 0), 25)], SOURCE);
  reader.feed([fullFrame(T(0, 0, 1, 15), 30)], SOURCE); // within a frame: a locate all the same
  play(pieces(T(0, 0, 5, 0), 25), 25);
  clock.advance(1);
  reader.feed([fullFrame(T(0, 10, 0, 0), 25)], SOURCE); // 1 ms after running code
  assert.deepEqual(samples.map((s) => [s.motion, s.seconds]), [
    ["locate", 3720],
    ["locate", 1.5],
    ["forward", 5 + 2 / 25],
    ["locate", 600],
  ]);
});

Deno.test("TimecodeReader passes a jump of running code within a frame", () => {
  const { samples, reader, clock } = setup();
  const flood = (time: Time) => {
    for (const m of pieces(time, 25)) {
      clock.advance(1); // eight pieces in 8 ms
      reader.feed([m], SOURCE);
    }
  };
  flood(T(0, 0, 1, 0));
  flood(T(0, 0, 1, 2)); // the same motion, no jump: within a frame, read away
  flood(T(0, 20, 0, 0)); // a jump: passes
  assert.deepEqual(samples.map((s) => s.seconds), [1 + 2 / 25, 1200 + 2 / 25]);
});

Deno.test("TimecodeReader refuses quarter-frame hours past 23, as the full frame does", () => {
  const { samples, play, reader } = setup();
  play(pieces(T(24, 0, 0, 0), 25), 25);
  play(pieces(T(31, 0, 0, 0), 25), 25);
  reader.feed([fullFrame(T(24, 0, 0, 0), 25)], SOURCE);
  assert.equal(samples.length, 0);
});

Deno.test("TimecodeReader ignores other sysex and out-of-range times", () => {
  const { samples, reader } = setup();
  reader.feed([{ type: "sysex", data: new Uint8Array([0x7e, 0x7f, 0x06, 0x01]) }], SOURCE);
  reader.feed([fullFrame(T(0, 0, 0, 25), 25)], SOURCE);
  assert.equal(samples.length, 0);
});

Deno.test("TimecodeReader sends one sample every two frames of running code", () => {
  const { samples, play } = setup();
  for (let f = 0; f < 50; f += 2) play(pieces(T(0, 0, 0, f % 25), 25), 25);
  assert.equal(samples.length, 25);
  const gaps = samples.slice(1).map((s, i) => s.at - samples[i]!.at);
  assert.ok(gaps.every((g) => Math.abs(g - 80) < 1e-9), `${gaps}`);
});

Deno.test("TimecodeReader bounds a flood: pieces faster than real time give one sample a frame", () => {
  const { samples, reader, clock } = setup();
  for (let i = 0; i < 100; i++) {
    clock.advance(1); // 8 pieces in 8 ms: 10 times too fast at 25 fps
    reader.feed(pieces(T(0, 0, 1, 0), 25).slice(i % 8, i % 8 + 1), SOURCE);
  }
  // 100 ms of flood at 25 fps, a time complete every 8 ms: one sample per 40 ms frame.
  assert.deepEqual(samples.map((s) => [s.at, s.motion]), [
    [1008, "forward"],
    [1048, "forward"],
    [1088, "forward"],
  ]);
});

Deno.test("TimecodeReader says stopped once no quarter frame came for stopAfterMs", () => {
  const { samples, play, clock } = setup(200);
  play(pieces(T(0, 0, 3, 0), 25), 25);
  clock.advance(199);
  assert.equal(samples.length, 1);
  clock.advance(1);
  assert.equal(samples.length, 2);
  assert.equal(samples[1]!.motion, "stopped");
  assert.equal(samples[1]!.seconds, samples[0]!.seconds);
  clock.advance(10_000);
  assert.equal(samples.length, 2, "stopped is said once");
});

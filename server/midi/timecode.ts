/**
 * The MIDI Timecode (MTC) reader: quarter frames (`F1 0nnn dddd`, eight
 * pieces per time, one full time every two frames, forwards or backwards)
 * and the full-frame message (`F0 7F <dev> 01 01 hh mm ss ff F7`, a locate)
 * become timecode samples the player's chase follows (`timecode` operation,
 * docs/midi.md "Timecode"). Nothing past this file knows MIDI: a sample is
 * seconds since 00:00:00:00, the frame rate and the receive time.
 * @module
 */
import {
  FRAME_RATES,
  type FrameRate,
  MAX_SAMPLE_AGE_MS,
  timecodeSeconds,
} from "../../protocol/timecode.ts";
import type { MidiMessage, MidiSource } from "./messages.ts";

/** Frame rates of MTC, by the two rate bits of the hours byte (29.97 is drop-frame). */
export const MTC_RATES: readonly FrameRate[] = FRAME_RATES;
/** One of `MTC_RATES`. */
export type MtcRate = FrameRate;

/**
 * One reading of the code: `seconds` since 00:00:00:00 at receive time `at`
 * (ms, the reader's clock); `motion` says how the code moves: `forward` and
 * `backward` from quarter frames, `locate` from a full frame (the code
 * stands there), `stopped` when no quarter frame came for `stopAfterMs`.
 */
export interface TimecodeSample {
  seconds: number;
  rate: MtcRate;
  at: number;
  motion: "forward" | "backward" | "locate" | "stopped";
}

/**
 * The input of the `timecode` operation for `sample` (`server/core/operations/timecode.ts`):
 * what the MIDI transport hands `Policy.invoke` for each sample the reader sends, just
 * before it sends it. `age` is how long ago the code was read (`now` less `sample.at`, on
 * the reader's clock: the real one unless given), so the chase counts the time the sample
 * waited on its way.
 */
export function timecodeInput(
  sample: TimecodeSample,
  now: number = SYSTEM_READER_CLOCK.now(),
): { seconds: number; rate: MtcRate; motion: TimecodeSample["motion"]; age: number } {
  const age = Math.min(MAX_SAMPLE_AGE_MS, Math.max(0, now - sample.at));
  return { seconds: sample.seconds, rate: sample.rate, motion: sample.motion, age };
}

/** The clock the reader counts silence on (the player's `Clock` has this shape). */
export interface ReaderClock {
  now(): number;
  setTimer(at: number, fn: () => void): unknown;
  clearTimer(id: unknown): void;
}

/** Real time for the reader: `performance.now()` and `setTimeout` (tests inject a virtual clock). */
export const SYSTEM_READER_CLOCK: ReaderClock = {
  now: () => performance.now(),
  setTimer: (at, fn) => setTimeout(fn, Math.max(0, at - performance.now())),
  clearTimer: (id) => clearTimeout(id as number),
};

/** Options of `TimecodeReader`. */
export interface TimecodeReaderOptions {
  clock: ReaderClock;
  /** Receives each sample: at most one a frame of running code, every locate, jump and stop. */
  send(sample: TimecodeSample, from: MidiSource): void;
  /** Silence after the last quarter frame that means the code stopped, ms (default 250). */
  stopAfterMs?: number;
}

/**
 * The MTC reader of one carrier. `feed` takes the messages as they arrive;
 * everything else is ignored. A full time is complete after eight pieces in
 * a row: piece 7 forwards (its time is two frames old then, so two frames
 * are added) or piece 0 backwards (the time of piece 0, as sent).
 *
 * @example
 * ```ts
 * // The MIDI transport: each sample runs the `timecode` operation as the sender.
 * const reader = new TimecodeReader({
 *   clock: SYSTEM_READER_CLOCK,
 *   send: (sample, from) => policy.invoke(timecodeOperation, callerOf(from), timecodeInput(sample)),
 * });
 * endpoint.onMessages((messages, from) => reader.feed(messages, from));
 * ```
 */
export class TimecodeReader {
  #options: TimecodeReaderOptions;
  #nibbles = new Array<number>(8).fill(0);
  /** Bit n set: piece n was seen in the current run of pieces. */
  #seen = 0;
  #last = -1;
  #direction: 1 | -1 = 1;
  #timer: unknown = null;
  #isRunning = false;
  #lastSample: TimecodeSample | null = null;
  #source: MidiSource | null = null;

  /** Reads nothing yet. */
  constructor(options: TimecodeReaderOptions) {
    this.#options = options;
  }

  /** The last sample sent, if any. */
  get lastSample(): TimecodeSample | null {
    return this.#lastSample;
  }

  /** Reads the MTC among `messages` (quarter frames and full-frame sysex), received now from `from`. */
  feed(messages: readonly MidiMessage[], from: MidiSource): void {
    for (const message of messages) {
      if (message.type === "quarterFrame") this.#quarterFrame(message.piece, message.value, from);
      else if (message.type === "sysex") this.#fullFrame(message.data, from);
    }
  }

  /** Cancels the silence timer; the reader is no longer used. */
  close(): void {
    if (this.#timer !== null) this.#options.clock.clearTimer(this.#timer);
    this.#timer = null;
  }

  #quarterFrame(piece: number, value: number, from: MidiSource): void {
    if (!(piece >= 0 && piece <= 7) || !(value >= 0 && value <= 15)) return;
    const now = this.#options.clock.now();
    this.#source = from;
    this.#isRunning = true;
    this.#armStop(now);
    const step = (piece - this.#last + 8) % 8;
    if (this.#last < 0 || (step !== 1 && step !== 7)) {
      this.#seen = 0; // a gap: start a new run
    } else {
      const direction = step === 1 ? 1 : -1;
      // The piece before belongs to the run in the new direction.
      if (direction !== this.#direction) this.#seen = 1 << this.#last;
      this.#direction = direction;
    }
    this.#last = piece;
    // A run starts at piece 0 forwards, at piece 7 backwards.
    if (piece === (this.#direction === 1 ? 0 : 7)) this.#seen = 0;
    this.#nibbles[piece] = value;
    this.#seen |= 1 << piece;
    if (this.#seen === 0xff && piece === (this.#direction === 1 ? 7 : 0)) this.#complete(now, from);
  }

  #complete(now: number, from: MidiSource): void {
    const n = this.#nibbles;
    const rate = MTC_RATES[(n[7]! >> 1) & 3]!;
    const time = {
      frames: n[0]! | ((n[1]! & 1) << 4),
      seconds: n[2]! | ((n[3]! & 3) << 4),
      minutes: n[4]! | ((n[5]! & 3) << 4),
      hours: n[6]! | ((n[7]! & 1) << 4),
    };
    this.#seen = 0;
    if (time.frames >= Math.round(rate) || time.seconds > 59 || time.minutes > 59) return;
    if (time.hours > 23) return; // hours 24-31 fit the five bits, but no clock shows them
    const forward = this.#direction === 1;
    // Forwards, the eight pieces took two frames to send: the code is two frames on by now.
    const frame = rate === 29.97 ? 1001 / 30_000 : 1 / rate; // 29.97 is exactly 30000/1001
    const seconds = timecodeSeconds(time, rate) + (forward ? 2 * frame : 0);
    this.#emit({ seconds, rate, at: now, motion: forward ? "forward" : "backward" }, from);
  }

  #fullFrame(data: Uint8Array, from: MidiSource): void {
    // 7F <device> 01 01 hh mm ss ff: a universal real-time MTC full message.
    if (data.length !== 8 || data[0] !== 0x7f || data[2] !== 0x01 || data[3] !== 0x01) return;
    const hh = data[4]!, rate = MTC_RATES[(hh >> 5) & 3]!;
    const time = { hours: hh & 0x1f, minutes: data[5]!, seconds: data[6]!, frames: data[7]! };
    if (time.hours > 23 || time.minutes > 59 || time.seconds > 59) return;
    if (time.frames >= Math.round(rate)) return;
    this.#seen = 0;
    this.#last = -1;
    const now = this.#options.clock.now();
    this.#emit({ seconds: timecodeSeconds(time, rate), rate, at: now, motion: "locate" }, from);
  }

  #emit(sample: TimecodeSample, from: MidiSource): void {
    if (isFlood(sample, this.#lastSample)) return;
    this.#lastSample = sample;
    this.#options.send(sample, from);
  }

  #armStop(now: number): void {
    const { clock } = this.#options;
    if (this.#timer !== null) clock.clearTimer(this.#timer);
    this.#timer = clock.setTimer(now + (this.#options.stopAfterMs ?? 250), () => {
      this.#timer = null;
      this.#stopped();
    });
  }

  #stopped(): void {
    this.#seen = 0;
    this.#last = -1;
    const last = this.#lastSample;
    if (!this.#isRunning || !last || !this.#source) return;
    this.#isRunning = false;
    const now = this.#options.clock.now();
    this.#emit(
      { seconds: last.seconds, rate: last.rate, at: now, motion: "stopped" },
      this.#source,
    );
  }
}

/**
 * Whether `sample` only repeats `last` too soon: a sender that floods quarter
 * frames is read at most once a frame. Only running code of the same motion
 * that lands where `last` said it would (within two frames) is held back; a
 * locate, a stop, a change of direction and a jump always pass.
 */
function isFlood(sample: TimecodeSample, last: TimecodeSample | null): boolean {
  if (!last || last.motion !== sample.motion) return false;
  if (sample.motion !== "forward" && sample.motion !== "backward") return false;
  const elapsed = (sample.at - last.at) / 1000;
  if (elapsed >= 1 / sample.rate) return false;
  const expected = last.seconds + (sample.motion === "forward" ? elapsed : -elapsed);
  return Math.abs(sample.seconds - expected) <= 2 / sample.rate;
}

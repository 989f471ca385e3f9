/**
 * Timecode as the show sees it, whatever carried it (MIDI Timecode today):
 * the Project's and the Song's chase settings, a timecode sample on its way
 * to the player (`timecode.sample`), and the chase's state in `appState`.
 * Offsets are written as the DAW shows them, `hh:mm:ss:ff` (docs/midi.md,
 * "Timecode").
 * @module
 */
import { z } from "zod";

/** The frame rates a chase understands (29.97 is drop-frame). */
export const FRAME_RATES = [24, 25, 29.97, 30] as const;
/** One of `FRAME_RATES`. */
export type FrameRate = (typeof FRAME_RATES)[number];

/** A frame rate as a schema. */
export const FrameRateSchema = z.union(FRAME_RATES.map((r) => z.literal(r)))
  .describe("Frames per second of the code: 24, 25, 29.97 (drop-frame) or 30");

const TIMECODE_PATTERN = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d)[:;]([0-2]\d)$/;

/** A timecode `hh:mm:ss:ff` (hours 00-23; `;` before the frames is taken too). */
export const TimecodeString = z.string().regex(
  TIMECODE_PATTERN,
  'Must be a timecode "hh:mm:ss:ff" (hours 00-23, frames 00-29), as "01:02:00:00"',
);

/** The Project's timecode settings (absent from a Project: these defaults). */
export const ProjectTimecode = z.object({
  /** Whether the active Song follows incoming timecode, unless the Song says otherwise. */
  chase: z.boolean().default(false),
  frameRate: FrameRateSchema.default(25),
  /** Timecode of a Song's position 0, unless the Song has its own. */
  offset: TimecodeString.default("00:00:00:00"),
  /** Seconds the Song plays on after the code stops coming, before it pauses. */
  freewheel: z.number().min(0).max(10).default(1.5),
});

/** A Song's own timecode settings; null fields take the Project's. */
export const SongTimecode = z.object({
  chase: z.boolean().nullable().default(null),
  offset: TimecodeString.nullable().default(null),
});

/** What the defaults of a Project without `timecode` are. */
export const TIMECODE_DEFAULTS: z.output<typeof ProjectTimecode> = ProjectTimecode.parse({});

/**
 * Seconds of timecode `text` at `rate` (drop-frame at 29.97: frames 00 and 01
 * of each minute but every tenth do not exist).
 * @throws {RangeError} when it is no timecode, or its frames reach the rate
 */
export function timecodeToSeconds(text: string, rate: FrameRate): number {
  const m = TIMECODE_PATTERN.exec(text);
  if (!m) throw new RangeError(`"${text}" is not a timecode hh:mm:ss:ff`);
  const [hours, minutes, seconds, frames] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
  ];
  if (frames >= Math.round(rate)) {
    throw new RangeError(
      `"${text}" has frame ${frames}: at ${rate} fps frames go 00-${Math.round(rate) - 1}`,
    );
  }
  return timecodeSeconds({ hours, minutes, seconds, frames }, rate);
}

/** Seconds of `hh:mm:ss:ff` at `rate`; drop-frame (29.97) skips frames 0 and 1 of most minutes. */
export function timecodeSeconds(
  time: { hours: number; minutes: number; seconds: number; frames: number },
  rate: FrameRate,
): number {
  if (rate !== 29.97) {
    return time.hours * 3600 + time.minutes * 60 + time.seconds + time.frames / rate;
  }
  const totalMinutes = time.hours * 60 + time.minutes;
  const dropped = 2 * (totalMinutes - Math.floor(totalMinutes / 10));
  const frameNumber = (totalMinutes * 60 + time.seconds) * 30 + time.frames - dropped;
  return frameNumber * 1001 / 30_000;
}

/** `hh:mm:ss:ff` (`;` before the frames at drop-frame) of `seconds` at `rate`, for the state and logs. */
export function formatTimecode(seconds: number, rate: FrameRate): string {
  const nominal = Math.round(rate);
  // The frame under way (29.97 counts exactly 30000/1001 frames a second).
  let frames = Math.floor(seconds * (rate === 29.97 ? 30_000 / 1001 : rate) + 1e-6);
  if (rate === 29.97) {
    // SMPTE drop-frame: add back the two numbers skipped in each minute but every tenth.
    const per10 = 17_982, perMinute = 1798;
    const tens = Math.floor(frames / per10), rest = frames % per10;
    frames += 18 * tens + (rest > 1 ? 2 * Math.floor((rest - 2) / perMinute) : 0);
  }
  const ff = frames % nominal, total = Math.floor(frames / nominal);
  const two = (n: number) => String(n).padStart(2, "0");
  const sep = rate === 29.97 ? ";" : ":";
  return `${two(Math.floor(total / 3600))}:${two(Math.floor(total / 60) % 60)}:${
    two(total % 60)
  }${sep}${two(ff)}`;
}

/** The oldest a sample may be, ms: older code says nothing of where the show is now. */
export const MAX_SAMPLE_AGE_MS = 10_000;

/** `timecode.sample` params: one reading of the code, as the service received it. */
export const TimecodeSampleParams = z.object({
  /** Seconds since 00:00:00:00 the code said, already including the transport's delay (MTC's two frames). */
  seconds: z.number().min(0).max(86_400),
  rate: FrameRateSchema,
  /** forward: the code runs; backward: it runs backwards; locate: it stands there; stopped: it stopped coming. */
  motion: z.enum(["forward", "backward", "locate", "stopped"]),
  /** Who sent it (a MIDI session participant, an OSC sender), for the state. */
  source: z.string().max(200).default(""),
  /**
   * How long ago the code was read, ms, measured by the service just before
   * it sends the sample: running code has moved on by this much (absent: 0).
   */
  age: z.number().min(0).max(MAX_SAMPLE_AGE_MS).optional(),
});

/** How the active Song follows the code (`appState.timecode.status`). */
export const ChaseStatus = z.enum(["off", "waiting", "locked", "freewheeling"]);

/** The chase's state: `appState.timecode`, and the answer of `timecode.sample`. */
export const TimecodeState = z.strictObject({
  status: ChaseStatus.describe(
    "off: the active Song does not chase; waiting: it chases, no code runs; locked: it follows the code; freewheeling: the code dropped out and the Song plays on",
  ),
  projectId: z.string().nullable(),
  songID: z.string().nullable(),
  timecode: z.string().nullable().describe('The last code received, "hh:mm:ss:ff"; null: none yet'),
  rate: FrameRateSchema.nullable(),
  position: z.number().nullable().describe(
    "The Song position the last code meant (code less the Song's offset; running code moved on by its age), seconds",
  ),
  source: z.string().describe("Who sent the last code"),
});

/** The state before any code came. */
export const NO_TIMECODE: TimecodeState = {
  status: "off",
  projectId: null,
  songID: null,
  timecode: null,
  rate: null,
  position: null,
  source: "",
};

/** Derived types. */
export type ProjectTimecode = z.infer<typeof ProjectTimecode>;
export type SongTimecode = z.infer<typeof SongTimecode>;
export type TimecodeSampleParams = z.infer<typeof TimecodeSampleParams>;
export type ChaseStatus = z.infer<typeof ChaseStatus>;
export type TimecodeState = z.infer<typeof TimecodeState>;

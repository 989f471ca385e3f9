/**
 * The timecode operation: one sample of incoming timecode handed to the player, whose
 * active Song chases it (`timecode.sample`, docs/midi.md "Timecode"). MIDI Timecode comes
 * in through the MIDI transport's reader (`server/midi/timecode.ts`); any other source (an
 * LTC decoder, a script) sends the same samples over HTTP.
 * @module
 */
import { z } from "zod";
import {
  FrameRateSchema,
  TimecodeSampleParams,
  TimecodeState,
  TimecodeString,
  timecodeToSeconds,
} from "../../../protocol/timecode.ts";
import { CueportError } from "../errors.ts";
import { type AnyOperation, defineOperation, parseInput } from "./operation.ts";

/** What a sender gives: the code as seconds or as `hh:mm:ss:ff` (one of them), its rate and motion. */
export const TimecodeInput = z.strictObject({
  seconds: TimecodeSampleParams.shape.seconds.optional()
    .describe("Seconds since 00:00:00:00 (give this or timecode)"),
  timecode: TimecodeString.optional().describe('The code as "hh:mm:ss:ff" (give this or seconds)'),
  rate: FrameRateSchema,
  motion: TimecodeSampleParams.shape.motion.default("forward").describe(
    "forward: the code runs (the default); backward; locate: it stands there; stopped: it stopped",
  ),
  age: TimecodeSampleParams.shape.age.describe(
    "How long ago the code was read, ms (default 0): a sender that queued it says so, and the chase counts it",
  ),
});

/** `raw` with `seconds`, `rate` and `age` given as numeric text read as numbers. */
function withNumbers(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const out: Record<string, unknown> = { ...raw };
  for (const key of ["seconds", "rate", "age"]) {
    const value = out[key];
    if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) {
      out[key] = Number(value);
    }
  }
  return out;
}

/** `timecode`: `POST /api/v1/timecode`, OSC `/timecode`; the MIDI transport runs it for each MTC sample. */
export const timecodeOperation: AnyOperation = defineOperation({
  name: "timecode",
  since: "6.0",
  summary:
    "Hand the show one sample of incoming timecode; the active Song chases it when its Project or Song says so",
  tag: "playback",
  kind: "action",
  scope: "control",
  transports: ["http", "osc"],
  input: TimecodeInput,
  // OSC hands every argument over as text (`/timecode 25 3602.5`): numbers are read from it.
  parse: (raw) => parseInput(TimecodeInput, withNumbers(raw)),
  output: TimecodeState,
  run: ({ core, address }, input: z.output<typeof TimecodeInput>) => {
    const { seconds, timecode, rate, motion, age } = input;
    if ((seconds === undefined) === (timecode === undefined)) {
      throw new CueportError(
        "INVALID_MESSAGE",
        "Give either seconds or timecode: not both, not none",
        {
          field: "seconds",
        },
      );
    }
    let at = seconds;
    if (timecode !== undefined) {
      try {
        at = timecodeToSeconds(timecode, rate);
      } catch (error) {
        throw new CueportError("INVALID_MESSAGE", `Invalid timecode: ${(error as Error).message}`, {
          field: "timecode",
        });
      }
    }
    const sample = { seconds: at!, rate, motion, source: address };
    return core.timecode(age === undefined ? sample : { ...sample, age });
  },
});

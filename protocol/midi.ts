/**
 * MIDI as Cueport reads and writes it, declared once: the default map (which
 * note, program change, control change and transport message runs which
 * action), the feedback colour schemes a pad controller's LEDs show, and the
 * schema of a Project's own map (`Project.midi`, edited with
 * `project.set_midi`). `docs/midi.md` documents them from here; the MIDI
 * transport (`server/midi/`) applies them.
 * @module
 */
import { z } from "zod";

/** The largest data byte of a MIDI 1.0 message: a note, a velocity, a 7-bit controller value. */
export const DATA_MAX = 0x7f;

/** The largest 14-bit value (a control change pair, MSB and LSB). */
export const DATA14_MAX = 0x3fff;

/** The first note of the Clip pads: note 36 (C1) plays the active Song's Clip at index 0. */
export const CLIP_BASE_NOTE = 36;

/** The notes of the default map's buttons (above the Clip pads: Clips 0-88 use notes 36-124). */
export const NAVIGATION_NOTES = {
  /** `PREV_SONG_IN`. */
  previousSong: 125,
  /** `NEXT_SONG_IN`. */
  nextSong: 126,
  /**
   * Panic: `STOP_ALL_CLIPS_IN` (every Clip stops at once). Not the catalog's
   * `PANIC`, which reloads every window: a pad's panic button stops the show.
   */
  panic: 127,
} as const;

/** Clips the default map reaches: notes `CLIP_BASE_NOTE` up to the first navigation note. */
export const CLIP_NOTES = NAVIGATION_NOTES.previousSong - CLIP_BASE_NOTE;

/**
 * The control change of Control A (B is one more, up to Z = 26): CC 1-26 as
 * the coarse value (MSB, 7-bit), CC 33-58 (`n + 32`) as its fine value (LSB):
 * a controller that sends both gets 14-bit resolution.
 */
export const CONTROL_BASE_CC = 1;

/** The LSB of a 14-bit pair is its MSB's number plus this (MIDI 1.0). */
export const LSB_OFFSET = 32;

/** The default map's transport messages and the actions they run. */
export const TRANSPORT_ACTIONS = {
  start: "PLAY_IN",
  stop: "STOP_IN",
  continue: "RESUME_IN",
} as const;

/** What a Clip's pad shows, by its state; `queued` is not used yet (Clips start at once). */
export const PAD_STATES = ["off", "stopped", "playing", "paused"] as const;

/** A state of `PAD_STATES`. */
export type PadState = (typeof PAD_STATES)[number];

/**
 * The note velocity each pad state is sent with, per controller family:
 * `launchpad` (Novation's palette: 0 off, 9 orange, 21 green, 13 yellow;
 * Launchpad Mini/X/Pro in programmer mode), `apc` (Akai APC40/APC mini clip
 * LEDs: 0 off, 5 yellow, 1 green, 3 red), `plain` (any other: 0, 1, 127, 64).
 * `off` is a note with no Clip; `stopped` a Clip that is not playing.
 */
export const FEEDBACK_SCHEMES: Readonly<Record<string, Readonly<Record<PadState, number>>>> = {
  launchpad: { off: 0, stopped: 9, playing: 21, paused: 13 },
  apc: { off: 0, stopped: 5, playing: 1, paused: 3 },
  plain: { off: 0, stopped: 1, playing: 127, paused: 64 },
};

/** The names of `FEEDBACK_SCHEMES`. */
export const FEEDBACK_SCHEME_NAMES = ["launchpad", "apc", "plain"] as const;

/** A kind of message a binding matches. */
export const BINDING_KINDS = [
  "noteOn",
  "noteOff",
  "controlChange",
  "programChange",
  "start",
  "stop",
  "continue",
] as const;

/** A kind of `BINDING_KINDS`. */
export type BindingKind = (typeof BINDING_KINDS)[number];

const ParamValue = z.union([z.string(), z.number(), z.boolean()]);

/** One binding of a Project's map: a message -> an action with params. */
export const MidiBinding = z.strictObject({
  channel: z.number().int().min(1).max(16).nullable().default(null)
    .describe("MIDI channel 1-16; null: any channel"),
  kind: z.enum(BINDING_KINDS).describe("The message it matches"),
  number: z.number().int().min(0).max(127).nullable().default(null).describe(
    "Note, controller or program number 0-127; null: any (start, stop, continue have none)",
  ),
  action: z.string().regex(/^[A-Z][A-Z0-9_]*$/, "must be an action name such as PLAY_IN")
    .describe("Action of the catalog (GET /api/v1/actions)"),
  params: z.array(ParamValue).max(8).default([]).describe("The action's params, in order"),
  value: z.enum(["param", "trigger"]).optional().describe(
    "What a control change does: `param` appends its value (scaled min-max) to params " +
      "(default for controlChange); `trigger` runs the action when the value reaches 64. " +
      "A note on always passes its velocity to actions that take one",
  ),
  min: z.number().finite().default(0).describe("Value of CC 0 (param)"),
  max: z.number().finite().default(1).describe("Value of CC 127 (param)"),
});

/** A Project's MIDI map. */
export const MidiMap = z.strictObject({
  useDefault: z.boolean().default(true).describe(
    "Whether the default map (docs/midi.md) applies beside the bindings; a binding wins",
  ),
  channel: z.number().int().min(1).max(16).default(1)
    .describe("The default map's channel, 1-16 (its notes, CCs and feedback)"),
  programBase: z.union([z.literal(0), z.literal(1)]).default(1).describe(
    "1: program change 0 selects the Song with pgmId 1 (as most devices count, 1-128); " +
      "0: program change 0 selects pgmId 0",
  ),
  feedback: z.enum(FEEDBACK_SCHEME_NAMES).default("launchpad")
    .describe("The colour scheme of pad feedback (velocities per Clip state)"),
  bindings: z.array(MidiBinding).max(512).default([]),
});

/** Derived types. */
export type MidiBinding = z.infer<typeof MidiBinding>;
export type MidiMap = z.infer<typeof MidiMap>;

/** The map of a Project that has none of its own. */
export const DEFAULT_MIDI_MAP: MidiMap = MidiMap.parse({});

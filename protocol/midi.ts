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

/** An action of the catalog, by name. */
const ActionName = z.string().regex(/^[A-Z][A-Z0-9_]*$/, "must be an action name such as PLAY_IN");

/** One binding of a Project's map: a message -> an action with params. */
export const MidiBinding = z.strictObject({
  channel: z.number().int().min(1).max(16).nullable().default(null)
    .describe("MIDI channel 1-16; null: any channel"),
  kind: z.enum(BINDING_KINDS).describe("The message it matches"),
  number: z.number().int().min(0).max(127).nullable().default(null).describe(
    "Note, controller or program number 0-127; null: any (start, stop, continue have none)",
  ),
  action: ActionName.describe("Action of the catalog (GET /api/v1/actions)"),
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

/**
 * What a client asks to learn (`midiLearn`, `POST /api/v1/midi/learn`): the
 * binding's action and params, and for a control change how its value is read.
 */
export const MidiLearnRequest = z.strictObject({
  action: ActionName.describe("The action the next message runs (GET /api/v1/actions lists them)"),
  params: MidiBinding.shape.params.describe(
    "Its params, in order (a control change appends its value)",
  ),
  value: MidiBinding.shape.value.describe(
    "For a control change: append its value (param, default) or run at 64 (trigger)",
  ),
  min: z.number().finite().optional().describe("Value of CC 0 (default 0)"),
  max: z.number().finite().optional().describe("Value of the top CC value (default 1)"),
  projectId: z.string().min(1).optional().describe("The Project whose map gets it; the active one"),
});

/** A MIDI source refused until the operator approves it. */
export const MidiPendingRequest = z.strictObject({
  requestId: z.string(),
  address: z.string(),
  /** The name the source gave (its session name). */
  name: z.string(),
  requestedAt: z.string(),
});

/**
 * A MIDI source connected now, as `GET /api/v1/midi` lists it: `kind`,
 * `address` and `name` name it (feedback's targets match them); a network
 * session's participant also has its counters (docs/midi.md, "What the
 * operator sees").
 */
export const MidiParticipant = z.strictObject({
  kind: z.enum(["rtp", "local"]).describe("rtp: a network session's participant; local: a port"),
  address: z.string().describe("The participant's address (rtp) or the port's name (local)"),
  name: z.string().describe("Its session name or the port's name"),
  ssrc: z.number().int().optional().describe("rtp: its RTP synchronization source"),
  initiator: z.enum(["us", "peer"]).optional()
    .describe("rtp: us when Cueport invited it (midiInvite), peer when it invited Cueport"),
  joinedAt: z.string().nullable().optional()
    .describe("rtp: when its session opened (ISO 8601); null when not known"),
  latencyMs: z.number().nullable().optional()
    .describe("rtp: half the last clock sync's round trip (ms); null before one completed"),
  received: z.number().int().optional().describe("rtp: RTP-MIDI packets received in order"),
  lost: z.number().int().optional()
    .describe("rtp: packets missing (gaps in its sequence numbers)"),
  recovered: z.number().int().optional()
    .describe("rtp: messages rebuilt from the recovery journal of the packets after a gap"),
  late: z.number().int().optional()
    .describe(
      "rtp: packets dropped as out of order: after a later one or repeated (not told apart)",
    ),
});

/** A MIDI message as JSON shows it. */
const MidiMessageView = z.record(z.string(), z.unknown())
  .describe("A MIDI message: type, channel 1-16, its numbers; `from` and `at`");

/**
 * `GET /api/v1/midi` but its participants (`server/core/operations/midi.ts`
 * adds them, as the MIDI transport reports them).
 */
export const MidiStatusFields = z.strictObject({
  endpoints: z.number().int().describe("MIDI carriers attached (network session, local ports)"),
  pending: z.array(MidiPendingRequest).describe(
    "Sources refused until the operator approves them (POST /api/v1/midi/approvals/:id)",
  ),
  projectId: z.string().nullable().describe("The active Project, whose map is in effect"),
  map: MidiMap.describe("The map in effect: the Project's (docs/midi.md)"),
  learning: MidiLearnRequest.nullable().describe("What a waiting learn binds"),
  lastMessage: MidiMessageView.nullable(),
  counts: z.strictObject({
    received: z.number().int(),
    refused: z.number().int().describe("Messages of sources not admitted"),
    failed: z.number().int().describe("Calls the policy or the player refused"),
    dropped: z.number().int().describe("Values replaced before they ran, calls past the cap"),
  }),
  lastError: z.strictObject({ action: z.string(), code: z.string(), message: z.string() })
    .nullable(),
});

/** How a learn ended (`midiLearn`'s answer). */
export const MidiLearnAnswer = z.union([
  z.strictObject({
    learned: z.literal(true),
    binding: MidiBinding,
    message: MidiMessageView,
    revision: z.number().int().optional().describe("The Project's revision after the edit"),
  }),
  z.strictObject({
    learned: z.literal(false),
    reason: z.enum(["cancelled", "replaced"]).describe(
      "cancelled: POST /api/v1/midi/learn/cancel or the request closed; replaced: another learn",
    ),
  }),
]);

/** Derived types. */
export type MidiBinding = z.infer<typeof MidiBinding>;
export type MidiMap = z.infer<typeof MidiMap>;
export type MidiLearnRequest = z.infer<typeof MidiLearnRequest>;
export type MidiPendingRequest = z.infer<typeof MidiPendingRequest>;
export type MidiStatusFields = z.infer<typeof MidiStatusFields>;
export type MidiParticipant = z.infer<typeof MidiParticipant>;
export type MidiLearnAnswer = z.infer<typeof MidiLearnAnswer>;

/** The map of a Project that has none of its own. */
export const DEFAULT_MIDI_MAP: MidiMap = MidiMap.parse({});

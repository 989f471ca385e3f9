/**
 * What happens in a network MIDI session, as `RtpMidiNetwork` tells its
 * `onEvent` option: for the log, the operator's view and the tests.
 * @module
 */
import type { MidiMessage } from "../messages.ts";
import type { ParticipantInfo } from "./participant.ts";

/** Something that happened in the session, for the log and the tests. */
export type RtpMidiEvent =
  | { type: "joined"; participant: ParticipantInfo }
  | {
    type: "left";
    participant: ParticipantInfo;
    reason: "bye" | "timeout" | "replaced";
  }
  | { type: "refused"; address: string; name: string }
  | { type: "declined"; host: string; port: number }
  | { type: "synced"; participant: ParticipantInfo }
  | { type: "recovered"; participant: ParticipantInfo; lost: number; messages: MidiMessage[] };

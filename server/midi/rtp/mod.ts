/**
 * Network MIDI: Cueport as an RTP-MIDI (RFC 6295) and AppleMIDI session
 * participant, `RtpMidiNetwork`, a `MidiEndpoint`. See `docs/midi.md`,
 * "Network MIDI".
 * @module
 */
export { RtpMidiNetwork, type RtpMidiOptions } from "./network.ts";
export type { RtpMidiEvent } from "./events.ts";
export type { ParticipantInfo } from "./participant.ts";
export type { EdgeBudget } from "./edge.ts";
export type { Backoff } from "./invitations.ts";

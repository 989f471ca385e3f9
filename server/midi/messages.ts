/**
 * MIDI 1.0 messages as the MIDI transport sees them, whatever carried them
 * (an RTP-MIDI session, a local port): one object per message. Channels are
 * 1-16, as musicians and every map in `docs/midi.md` count them; data bytes
 * are 7-bit. A note on with velocity 0 is a note off (MIDI 1.0 running-status
 * habit), so decoders hand it over as `noteOff`.
 * @module
 */

/** A channel voice message. */
export type ChannelMessage =
  | { type: "noteOn"; channel: number; note: number; velocity: number }
  | { type: "noteOff"; channel: number; note: number; velocity: number }
  | { type: "polyPressure"; channel: number; note: number; pressure: number }
  | { type: "controlChange"; channel: number; controller: number; value: number }
  | { type: "programChange"; channel: number; program: number }
  | { type: "channelPressure"; channel: number; pressure: number }
  /** 0-16383, 8192 centre. */
  | { type: "pitchBend"; channel: number; value: number };

/** A system message: MTC quarter frames, song position, transport, exclusive. */
export type SystemMessage =
  /** MTC quarter frame: `piece` 0-7, `value` 0-15 (F1 nn). */
  | { type: "quarterFrame"; piece: number; value: number }
  /** Song position pointer in MIDI beats (sixteenth notes), 0-16383 (F2). */
  | { type: "songPosition"; beats: number }
  | { type: "songSelect"; song: number }
  | { type: "clock" }
  | { type: "start" }
  | { type: "continue" }
  | { type: "stop" }
  | { type: "activeSensing" }
  | { type: "reset" }
  /** System exclusive: the bytes between F0 and F7, both left out. */
  | { type: "sysex"; data: Uint8Array };

/** Any MIDI 1.0 message. */
export type MidiMessage = ChannelMessage | SystemMessage;

/** Where a message came from: a session participant or a local port, as the transport names it. */
export interface MidiSource {
  /** `rtp` for a network session, `local` for a port of this machine. */
  kind: "rtp" | "local";
  /** The participant's address (rtp) or the port's name (local). */
  address: string;
  /** The participant's session name or the port's name, as shown to the operator. */
  name: string;
}

/**
 * What the MIDI transport needs of a carrier of messages (a network session
 * manager, a local port): messages in with their source, messages out to
 * every connected participant or, with `sendTo`, to chosen ones.
 */
export interface MidiEndpoint {
  /** Sets the one handler of incoming messages (replaces an earlier one). */
  onMessages(handler: (messages: readonly MidiMessage[], from: MidiSource) => void): void;
  /** Sends `messages` to every connected participant, in order. */
  send(messages: readonly MidiMessage[]): void;
  /**
   * Sends `messages` only to the participants `to` (matched by address and name), in
   * order; others get nothing. Optional: a carrier without it is sent
   * feedback only when every participant it has is a target.
   */
  sendTo?(messages: readonly MidiMessage[], to: readonly MidiSource[]): void;
}

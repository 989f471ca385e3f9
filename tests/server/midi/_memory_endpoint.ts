/**
 * An in-memory MIDI endpoint for the transport's tests: messages are
 * delivered as a network session would hand them over, what the transport
 * sends is kept, and participants join on demand.
 */
import type { MidiMessage, MidiSource } from "../../../server/midi/messages.ts";
import type { MidiPort } from "../../../server/midi/mod.ts";

/** A participant on this machine (exempt under localhostAuthExempt). */
export const LOCAL_DAW: MidiSource = { kind: "rtp", address: "127.0.0.1", name: "Test DAW" };

/** A participant from the LAN, neither paired nor allowed. */
export const REMOTE_PAD: MidiSource = { kind: "rtp", address: "192.168.7.20", name: "Pad" };

/** The endpoint. */
export class MemoryEndpoint implements MidiPort {
  #handler: ((messages: readonly MidiMessage[], from: MidiSource) => void) | null = null;
  #joined: ((source: MidiSource) => void) | null = null;
  #participants: MidiSource[] = [];
  /** Every message sent, in order. */
  sent: MidiMessage[] = [];

  onMessages(handler: (messages: readonly MidiMessage[], from: MidiSource) => void): void {
    this.#handler = handler;
  }

  onJoined(handler: (source: MidiSource) => void): void {
    this.#joined = handler;
  }

  participants(): readonly MidiSource[] {
    return this.#participants;
  }

  send(messages: readonly MidiMessage[]): void {
    this.sent.push(...messages);
  }

  /** Hands messages to the transport, as from `from`. */
  deliver(messages: MidiMessage[], from: MidiSource = LOCAL_DAW): void {
    this.#handler?.(messages, from);
  }

  /** A participant joins. */
  join(source: MidiSource): void {
    this.#participants.push(source);
    this.#joined?.(source);
  }
}

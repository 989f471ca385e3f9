/**
 * An in-memory MIDI endpoint for the transport's tests: messages are
 * delivered as a network session would hand them over, what the transport
 * sends is kept, and participants join on demand.
 */
import type { MidiMessage, MidiSource } from "../../../server/midi/messages.ts";
import type { MidiPort } from "../../../server/midi/mod.ts";

/** A participant on this machine (exempt under localhostAuthExempt). */
export const LOCAL_DAW: MidiSource = { kind: "rtp", address: "127.0.0.1", name: "Test DAW" };

/** A pad controller on a port of this machine (exempt under localhostAuthExempt). */
export const LOCAL_PAD: MidiSource = { kind: "local", address: "Launchpad X", name: "Launchpad X" };

/** A participant from the LAN, neither paired nor allowed. */
export const REMOTE_PAD: MidiSource = { kind: "rtp", address: "192.168.7.20", name: "Pad" };

/** The endpoint. */
export class MemoryEndpoint implements MidiPort {
  #handler: ((messages: readonly MidiMessage[], from: MidiSource) => void) | null = null;
  #joined: ((source: MidiSource) => void) | null = null;
  #participants: MidiSource[] = [];
  /** Every message sent, in order. */
  sent: MidiMessage[] = [];
  /** What each participant received, by address (`send`: all of them; `sendTo`: those named). */
  received = new Map<string, MidiMessage[]>();

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
    this.sendTo(messages, this.#participants);
  }

  sendTo(messages: readonly MidiMessage[], to: readonly MidiSource[]): void {
    this.sent.push(...messages);
    for (const p of to) this.received.set(p.address, [...this.receivedBy(p), ...messages]);
  }

  /** What `source` received. */
  receivedBy(source: MidiSource): MidiMessage[] {
    return this.received.get(source.address) ?? [];
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

/**
 * The output's local MIDI ports (docs/midi.md, "Local ports"): the output page lists the
 * machine's MIDI ports through its browser's Web MIDI (`page/midi.js`) and forwards what
 * their inputs receive; the player relays both, bytes and port names, to the service
 * (`midi.local`) and plays what the service sends (`midi.send`) on the output ports. The
 * player knows no map: the service reads the bytes. No page connected, no ports.
 * @module
 */
import type { MidiLocalParams } from "../../protocol/methods.ts";
import type { FromPage, LocalMidiMessage, ToPage } from "../../protocol/output.ts";
import type { DevTools } from "./devtools.ts";

/** A page's MIDI message: its ports, or input received. */
export type PageMidi = Extract<FromPage, { type: "midi-ports" | "midi-in" }>;

/** What the service is told: the ports now, or input. */
export type MidiLocalEvent = MidiLocalParams;

/** The local MIDI ports of the output's page connected now. */
export class MidiPorts {
  readonly #tell: (event: MidiLocalEvent) => void;
  readonly #send: (message: ToPage) => void;
  #ports: Extract<MidiLocalEvent, { type: "ports" }> = {
    type: "ports",
    inputs: [],
    outputs: [],
    error: null,
  };

  /** `tell`: the service's ear (`midi.local`); `send`: to the page connected. */
  constructor(tell: (event: MidiLocalEvent) => void, send: (message: ToPage) => void) {
    this.#tell = tell;
    this.#send = send;
  }

  /** The ports the page listed last (none while no page is connected). */
  current(): MidiLocalEvent {
    return { ...this.#ports };
  }

  /** A page's MIDI message: its ports are kept and told, its input told. */
  take(message: PageMidi): void {
    if (message.type === "midi-in") {
      this.#tell({ type: "input", messages: message.messages });
      return;
    }
    const { inputs, outputs, error } = message;
    this.#ports = { type: "ports", inputs, outputs, error };
    this.#tell(this.current());
  }

  /**
   * A page connected: it opens the machine's MIDI ports when `open` (setting midiLocal not off),
   * only the ports of the names given when it is a list.
   */
  pageOpened(open: boolean | readonly string[]): void {
    if (typeof open === "boolean") this.#send({ type: "midi", open });
    else this.#send({ type: "midi", open: true, ports: [...open] });
  }

  /** What the page socket tells here (`PageSocketHost`'s `midi` and `closed`). */
  pageHost(): { midi(message: PageMidi): void; closed(): void } {
    return { midi: (message) => this.take(message), closed: () => this.pageGone() };
  }

  /** The page went away (closed, reloading, the output stopped): no ports until it says. */
  pageGone(): void {
    const had = this.#ports.inputs.length + this.#ports.outputs.length > 0;
    this.#ports = { type: "ports", inputs: [], outputs: [], error: null };
    if (had) this.#tell(this.current());
  }

  /** Plays `messages` on the output ports named (null: every one); none listed, nothing sent. */
  send(messages: ReadonlyArray<Omit<LocalMidiMessage, "port"> & { port: string | null }>): void {
    if (this.#ports.outputs.length === 0 || messages.length === 0) return;
    this.#send({ type: "midi-send", messages: [...messages] });
  }
}

/**
 * Lets the output's pages (`url`'s origin) use Web MIDI without a prompt: `midi`, then
 * `midiSysex` apart (the page forwards MTC full frames only and sends no system exclusive; a
 * browser that refuses it leaves the page without full frames, not without MIDI). A browser
 * that refuses both says so in the page's `midi-ports` error; the page shows either way.
 */
export async function grantMidi(devtools: DevTools, url: string): Promise<void> {
  const origin = new URL(url).origin;
  for (const permission of ["midi", "midiSysex"]) {
    await devtools.send("Browser.grantPermissions", { permissions: [permission], origin })
      .catch(() => {});
  }
}

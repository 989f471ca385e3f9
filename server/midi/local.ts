/**
 * Local MIDI ports (docs/midi.md, "Local ports"): the ports of the show machine as the
 * output's browser lists them through Web MIDI (Chromium: CoreMIDI, Windows MIDI Services or
 * WinMM, ALSA), relayed by the player (`midi.local`, bytes and port names) and read here
 * (`bytes.ts`). Each input port is a source of kind `local` named by the port, admitted as on
 * this machine; feedback goes to the output ports (`midi.send`). The setting `midiLocal` takes
 * every port (`true`) or the ports named. No output running, no ports. A port that leaves with
 * notes sounding releases them (note offs), so a Gate Clip it held stops.
 * @module
 */
import { MIDI_BATCH_MAX } from "../../protocol/output.ts";
import type { MidiLocalParams, MidiSendParams } from "../../protocol/methods.ts";
import { decodeMessages, encodeMessage } from "./bytes.ts";
import type { MidiEndpoint, MidiMessage, MidiSource } from "./messages.ts";

/** Options of `LocalMidi`. */
export interface LocalMidiOptions {
  /** Setting midiLocal: every port (true) or the ports of these names. */
  ports: true | readonly string[];
  /** Sends messages to the output's ports through the player (`midi.send`). */
  send(params: MidiSendParams): Promise<unknown>;
}

/** The local ports taken now, and why there are none (`GET /api/v1/midi`'s `local`). */
export interface LocalPorts {
  inputs: string[];
  outputs: string[];
  error: string | null;
}

type Handler = (messages: readonly MidiMessage[], from: MidiSource) => void;

/** The output's local MIDI ports as one endpoint of the MIDI transport (a `MidiPort`: `mod.ts`). */
export class LocalMidi implements MidiEndpoint {
  readonly #o: LocalMidiOptions;
  #handler: Handler = () => {};
  #joined: (source: MidiSource) => void = () => {};
  #inputs: string[] = [];
  #outputs: string[] = [];
  /** The notes sounding on each input port ("channel note"), released if the port leaves. */
  #held = new Map<string, Set<string>>();
  /** Why no port is listed (no output running, no Web MIDI), as the player said. */
  error: string | null = "no output running";

  /** No port until the player lists them. */
  constructor(options: LocalMidiOptions) {
    this.#o = options;
  }

  /** Sets the one handler of incoming messages. */
  onMessages(handler: Handler): void {
    this.#handler = handler;
  }

  /** Sets the one handler told when an input port appears (it gets every feedback value). */
  onJoined(handler: (source: MidiSource) => void): void {
    this.#joined = handler;
  }

  /** The ports taken now, inputs and outputs, each name once. */
  participants(): readonly MidiSource[] {
    const names = [...new Set([...this.#inputs, ...this.#outputs])];
    return names.map((name) => ({ kind: "local", address: name, name }));
  }

  /** The ports taken now, and why there are none. */
  localPorts(): LocalPorts {
    return { inputs: [...this.#inputs], outputs: [...this.#outputs], error: this.error };
  }

  /** What the player said: the ports now, or input on them. */
  take(params: MidiLocalParams): void {
    if (params.type === "ports") return this.#ports(params);
    let run: { port: string; messages: MidiMessage[] } | null = null;
    for (const { port, data } of params.messages) {
      if (!this.#inputs.includes(port)) continue;
      if (run && run.port !== port) this.#deliver(run);
      if (!run || run.port !== port) run = { port, messages: [] };
      run.messages.push(...decodeMessages(data));
    }
    if (run) this.#deliver(run);
  }

  /** Sends `messages` to the output ports taken (system exclusive left out: not granted). */
  send(messages: readonly MidiMessage[]): void {
    if (this.#outputs.length === 0) return;
    this.#sendOn(messages, this.#o.ports === true ? [null] : this.#outputs);
  }

  /** Sends `messages` to the output ports named as the local sources `to` (a pad's own port). */
  sendTo(messages: readonly MidiMessage[], to: readonly MidiSource[]): void {
    const names = new Set(to.filter((s) => s.kind === "local").map((s) => s.name));
    const ports = this.#outputs.filter((name) => names.has(name));
    if (ports.length > 0) this.#sendOn(messages, ports);
  }

  #sendOn(messages: readonly MidiMessage[], targets: ReadonlyArray<string | null>): void {
    const out: MidiSendParams["messages"] = [];
    for (const message of messages) {
      if (message.type === "sysex") continue;
      const data = [...encodeMessage(message)];
      for (const port of targets) out.push({ port, data });
    }
    for (let i = 0; i < out.length; i += MIDI_BATCH_MAX) {
      // The player away: the feedback is lost, the next change sends anew.
      this.#o.send({ messages: out.slice(i, i + MIDI_BATCH_MAX) }).catch(() => {});
    }
  }

  #ports(params: Extract<MidiLocalParams, { type: "ports" }>): void {
    const taken = (name: string) => this.#o.ports === true || this.#o.ports.includes(name);
    const before = new Set(this.#inputs);
    this.#inputs = params.inputs.filter(taken);
    this.#outputs = params.outputs.filter(taken);
    this.error = params.error;
    for (const name of this.#inputs) {
      if (!before.has(name)) this.#joined({ kind: "local", address: name, name });
    }
    for (const name of before) if (!this.#inputs.includes(name)) this.#release(name);
  }

  /** A port gone while its notes sound: note offs for them, so a Gate Clip it held stops. */
  #release(port: string): void {
    const held = this.#held.get(port);
    this.#held.delete(port);
    if (!held || held.size === 0) return;
    const messages: MidiMessage[] = [...held].map((key) => {
      const [channel, note] = key.split(" ").map(Number) as [number, number];
      return { type: "noteOff", channel, note, velocity: 0 };
    });
    this.#deliver({ port, messages });
  }

  /** Keeps the notes sounding on `port` (a note on of velocity 0 decodes as a note off). */
  #hold(port: string, messages: readonly MidiMessage[]): void {
    for (const m of messages) {
      if (m.type !== "noteOn" && m.type !== "noteOff") continue;
      const held = this.#held.get(port) ?? new Set<string>();
      this.#held.set(port, held);
      if (m.type === "noteOn") held.add(`${m.channel} ${m.note}`);
      else held.delete(`${m.channel} ${m.note}`);
    }
  }

  #deliver(run: { port: string; messages: MidiMessage[] }): void {
    if (run.messages.length === 0) return;
    this.#hold(run.port, run.messages);
    this.#handler(run.messages, { kind: "local", address: run.port, name: run.port });
  }
}

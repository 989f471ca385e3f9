// @ts-check
// The output page's local MIDI ports (docs/midi.md, "Local ports"): the browser's Web MIDI
// (Chromium: CoreMIDI on macOS, Windows MIDI Services or WinMM on Windows, ALSA on Linux) lists
// the machine's ports, each known by its Web MIDI `id` and said by a name unique among its
// direction ("Pad", "Pad (2)"; "MIDI port" when it has none); what the inputs taken receive goes
// to the player in batches every 20 ms at most (`midi-in`, within the socket's bounds; clock `F8`
// and active sensing `FE` are dropped here, the service ignores them), and what the player sends
// is played on the output ports it names (`midi-send`). System exclusive is asked (the player
// grants `midiSysex`) for one message only: the MTC full frame (`F0 7F xx 01 01 hh mm ss ff F7`)
// is forwarded, every other sysex dropped, and none is ever sent. Refused, the page asks again
// without it. A message is 1 to 3 bytes, or that full frame.

/** @typedef {import("../../../protocol/output.ts").FromPage} FromPage */
/** @typedef {Extract<import("../../../protocol/output.ts").ToPage, {type: "midi-send"}>} MidiSend */

/**
 * Whether `data` is an MTC full frame, `F0 7F <device> 01 01 hh mm ss ff F7` (as
 * `protocol/output.ts`'s `isMtcFullFrame`, which the player checks again).
 * @param {number[]} data
 */
function isMtcFullFrame(data) {
  return data.length === 10 && data[0] === 0xf0 && data[1] === 0x7f && data[3] === 0x01 &&
    data[4] === 0x01 && data[9] === 0xf7 && data.slice(1, 9).every((b) => b < 0x80);
}

/**
 * How long input waits to go out with the next, ms: 50 page messages a second at most, a quarter
 * of the page socket's 200 (`PAGE_SOCKET_BOUNDS`), however fast the ports play.
 */
const BATCH_MS = 20;
/** Clock and active sensing: many a second, never read by the service; not forwarded. */
const IGNORED = new Set([0xf8, 0xfe]);
/** The most messages in a batch (`MIDI_BATCH_MAX`); more wait for the next. */
const BATCH_MAX = 1024;
/** The most ports of each direction said (`MIDI_PORTS_MAX`). */
const PORTS_MAX = 256;

/** The page's MIDI access: its ports said, their input forwarded, the player's sends played. */
export class PageMidi {
  /** @type {(message: FromPage) => void} */
  #send;
  /** @type {MIDIAccess | null} */
  #access = null;
  /** @type {string | null} */
  #error = null;
  /** @type {{port: string, data: number[]}[]} */
  #batch = [];
  /** @type {ReturnType<typeof setTimeout> | null} */
  #timer = null;
  #isStarted = false;
  /** @type {readonly string[] | null} the port names taken (setting midiLocal), null: every one */
  #only = null;
  /** @type {{input: Map<string, string>, output: Map<string, string>}} names said, by port id */
  #names = { input: new Map(), output: new Map() };

  /** @param {(message: FromPage) => void} send the page socket's */
  constructor(send) {
    this.#send = send;
  }

  /**
   * Asks for Web MIDI once (the player said so); the ports are said then and at each change.
   * @param {readonly string[] | null} [only] the port names taken; absent or null: every port
   */
  start(only = null) {
    if (this.#isStarted) return;
    this.#isStarted = true;
    this.#only = only;
    if (typeof navigator.requestMIDIAccess !== "function") {
      this.#error = "this browser has no Web MIDI";
      return this.sayPorts();
    }
    const ask = (/** @type {boolean} */ sysex) => navigator.requestMIDIAccess({ sysex });
    ask(true).catch(() => ask(false)).then((access) => {
      this.#access = access;
      access.onstatechange = () => this.#listen();
      this.#listen();
    }, (/** @type {unknown} */ error) => {
      this.#error = `Web MIDI refused: ${error instanceof Error ? error.message : error}`;
      this.sayPorts();
    });
  }

  /** Says the ports listed now (the socket connected, or they changed); nothing before `start`. */
  sayPorts() {
    if (!this.#isStarted) return;
    const names = (
      /** @type {"input" | "output"} */ type,
      /** @type {Iterable<MIDIPort>} */ ports,
    ) => this.#taken(type, ports).map((p) => this.#nameOf(p)).slice(0, PORTS_MAX);
    const access = this.#access;
    this.#send({
      type: "midi-ports",
      inputs: access ? names("input", access.inputs.values()) : [],
      outputs: access ? names("output", access.outputs.values()) : [],
      error: this.#error,
    });
  }

  /**
   * The connected ports of one direction taken (every one, or those midiLocal names), named.
   * @template {MIDIPort} P
   * @param {"input" | "output"} type
   * @param {Iterable<P>} ports
   * @returns {P[]}
   */
  #taken(type, ports) {
    const connected = [...ports].filter((p) => p.state === "connected");
    const names = this.#names[type];
    const ids = new Set(connected.map((p) => p.id));
    for (const id of names.keys()) if (!ids.has(id)) names.delete(id);
    const used = new Set(names.values());
    for (const port of connected) {
      if (names.has(port.id)) continue; // a port keeps its name while connected
      const base = String(port.name || "MIDI port").slice(0, 240);
      let name = base;
      for (let n = 2; used.has(name); n++) name = `${base} (${n})`;
      used.add(name);
      names.set(port.id, name);
    }
    const only = this.#only;
    return only ? connected.filter((p) => only.includes(this.#nameOf(p))) : connected;
  }

  /** @param {MIDIPort} port its name said: unique among its direction's ports */
  #nameOf(port) {
    return this.#names[port.type].get(port.id) ?? String(port.name || "MIDI port");
  }

  /** Plays the player's messages on the output ports named (null: every one). */
  /** @param {MidiSend["messages"]} messages */
  play(messages) {
    if (!this.#access) return;
    const outputs = this.#taken("output", this.#access.outputs.values());
    for (const { port, data } of messages) {
      for (const output of outputs) {
        if ((port !== null && this.#nameOf(output) !== port) || data[0] === 0xf0) continue;
        try {
          output.send(data);
        } catch { /* a port unplugged meanwhile: its statechange follows */ }
      }
    }
  }

  /** The input ports taken feed the batch (no other is opened); the ports are said. */
  #listen() {
    for (const input of this.#taken("input", this.#access?.inputs.values() ?? [])) {
      const port = this.#nameOf(input);
      input.onmidimessage = (event) => {
        const bytes = /** @type {MIDIMessageEvent} */ (event).data;
        if (!bytes || bytes.length < 1 || IGNORED.has(bytes[0] ?? 0)) return;
        if (bytes.length <= 3 || isMtcFullFrame([...bytes])) this.#queue(port, [...bytes]);
      };
    }
    this.sayPorts();
  }

  /**
   * @param {string} port
   * @param {number[]} data
   */
  #queue(port, data) {
    if (this.#batch.length >= BATCH_MAX * 8) return; // the socket is away: drop, do not hoard
    this.#batch.push({ port, data });
    this.#timer ??= setTimeout(() => this.#flush(), BATCH_MS);
  }

  #flush() {
    this.#timer = null;
    const messages = this.#batch.splice(0, BATCH_MAX);
    if (messages.length > 0) this.#send({ type: "midi-in", messages });
    if (this.#batch.length > 0) this.#timer = setTimeout(() => this.#flush(), BATCH_MS);
  }
}

// @ts-check
// The output page's local MIDI ports (docs/midi.md, "Local ports"): the browser's Web MIDI
// (Chromium: CoreMIDI on macOS, Windows MIDI Services or WinMM on Windows, ALSA on Linux) lists
// the machine's ports by name; what their inputs receive goes to the player in batches every
// 10 ms at most (`midi-in`, within the socket's bounds), and what the player sends is played on
// the output ports it names (`midi-send`). No system exclusive: `sysex` is not asked (the
// player grants the `midi` permission only), so a message is 1 to 3 bytes.

/** @typedef {import("../../../protocol/output.ts").FromPage} FromPage */
/** @typedef {Extract<import("../../../protocol/output.ts").ToPage, {type: "midi-send"}>} MidiSend */

/** How long input waits to go out with the next, ms: 100 page messages a second at most. */
const BATCH_MS = 10;
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

  /** @param {(message: FromPage) => void} send the page socket's */
  constructor(send) {
    this.#send = send;
  }

  /** Asks for Web MIDI once (the player said so); the ports are said then and at each change. */
  start() {
    if (this.#isStarted) return;
    this.#isStarted = true;
    if (typeof navigator.requestMIDIAccess !== "function") {
      this.#error = "this browser has no Web MIDI";
      return this.sayPorts();
    }
    navigator.requestMIDIAccess({ sysex: false }).then((access) => {
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
    const names = (/** @type {Iterable<MIDIPort>} */ ports) =>
      [...ports].filter((p) => p.state === "connected").map((p) => String(p.name ?? p.id))
        .slice(0, PORTS_MAX);
    const access = this.#access;
    this.#send({
      type: "midi-ports",
      inputs: access ? names(access.inputs.values()) : [],
      outputs: access ? names(access.outputs.values()) : [],
      error: this.#error,
    });
  }

  /** Plays the player's messages on the output ports named (null: every one). */
  /** @param {MidiSend["messages"]} messages */
  play(messages) {
    if (!this.#access) return;
    const outputs = [...this.#access.outputs.values()].filter((o) => o.state === "connected");
    for (const { port, data } of messages) {
      for (const output of outputs) {
        if (port !== null && output.name !== port) continue;
        try {
          output.send(data);
        } catch { /* a port unplugged meanwhile: its statechange follows */ }
      }
    }
  }

  /** Every input port's messages go to the batch; the ports are said. */
  #listen() {
    for (const input of this.#access?.inputs.values() ?? []) {
      const port = String(input.name ?? input.id);
      input.onmidimessage = (event) => {
        const bytes = /** @type {MIDIMessageEvent} */ (event).data;
        if (bytes && bytes.length >= 1 && bytes.length <= 3) this.#queue(port, [...bytes]);
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

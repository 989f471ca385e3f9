/**
 * Local MIDI ports end to end (docs/midi.md, "Local ports"): a service in this process, its
 * player in this process with a headless output, the output page's Web MIDI replaced before
 * the page loads by a stand-in of the Web MIDI shape this test drives (this machine has no
 * ALSA, so Chromium's platform layer is not exercised): a port appears and is listed by
 * `GET /api/v1/midi`, its note on plays the Clip with its velocity (the play state says so),
 * the feedback note reaches the port's `send`, clock and active sensing stay in the page, the
 * port unplugged disappears; ports are told apart by id ("Pad", "Pad (2)", "MIDI port" for one
 * with no name) and one midiLocal does not name is not opened. One browser.
 */
import { ask } from "../../../tools/testing/devtools.ts";
import assert from "node:assert/strict";
import { DEFAULT_MIDI_MAP, FEEDBACK_SCHEMES } from "../../../protocol/midi.ts";
import { VirtualClock } from "../../../player/mod.ts";
import type { Output } from "../../../player/output/mod.ts";
import { type MidiLocalEvent, MidiPorts } from "../../../player/output/midi_ports.ts";
import type { ToPage } from "../../../protocol/output.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { openOutputService, outputDataDir } from "../../../tools/testing/output.ts";
import { until } from "../../../tools/testing/until.ts";

/**
 * Web MIDI as the page sees it (`MIDIAccess`: maps of ports, `onstatechange`; ports with
 * `name`, `state`, `onmidimessage`, `send`), driven through `globalThis.cueportMidiTest`.
 */
const STAND_IN = `(() => {
  const inputs = new Map(), outputs = new Map();
  let access = null;
  const port = (type, id, name) => ({
    id: type + ":" + id, name, type, state: "connected", connection: "open",
    onmidimessage: null,
    send(data) { test.sent.push({ port: id, data: [...data] }); },
  });
  const test = {
    asked: null,
    sent: [],
    plug(name, id = name) {
      inputs.set(id, port("input", id, name));
      outputs.set(id, port("output", id, name));
      access?.onstatechange?.({ port: inputs.get(id) });
    },
    unplug(id) {
      const input = inputs.get(id);
      input.state = "disconnected";
      inputs.delete(id);
      outputs.delete(id);
      access?.onstatechange?.({ port: input });
    },
    opened(id) { return inputs.get(id).onmidimessage !== null; },
    play(id, bytes) { inputs.get(id).onmidimessage?.({ data: new Uint8Array(bytes) }); },
  };
  globalThis.cueportMidiTest = test;
  Object.defineProperty(navigator, "requestMIDIAccess", {
    configurable: true,
    value: (options) => {
      test.asked = options ?? null;
      access = { inputs, outputs, sysexEnabled: false, onstatechange: null };
      return Promise.resolve(access);
    },
  });
})();`;

/** The setting midiLocal of this test: two ports of one name, and one with no name. */
const TAKEN = ["Pad", "Pad (2)", "MIDI port"];

/** The output page's DevTools session, given the stand-in, reloaded: evaluates in the page. */
async function standIn(output: Output): Promise<(expression: string) => Promise<unknown>> {
  await until("the page shown", () => output.reports.length > 0, 120_000);
  const devtools = output.browserDevTools!;
  const { targetInfos } = await ask<{ targetInfos: { targetId: string; url: string }[] }>(
    devtools,
    "Target.getTargets",
  );
  const page = targetInfos.find((t) => t.url.startsWith(output.url))!;
  const { sessionId } = await ask<{ sessionId: string }>(devtools, "Target.attachToTarget", {
    targetId: page.targetId,
    flatten: true,
  });
  await ask(devtools, "Page.enable", {}, { sessionId });
  await ask(devtools, "Page.addScriptToEvaluateOnNewDocument", { source: STAND_IN }, { sessionId });
  // The reloaded page is told midiLocal's names, as the player's setting would (TAKEN).
  const opened = output.midi.pageOpened.bind(output.midi);
  output.midi.pageOpened = () => opened(TAKEN);
  await ask(devtools, "Page.reload", {}, { sessionId });
  return async (expression) => {
    const { result } = await ask<{ result: { value?: unknown } }>(devtools, "Runtime.evaluate", {
      expression,
      returnByValue: true,
      awaitPromise: true,
    }, { sessionId });
    return result.value;
  };
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "local MIDI: a Web MIDI port of the output page plays a Clip, gets feedback, unplugs",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dataDir = await outputDataDir();
    const { output, base, stop } = await openOutputService(dataDir, {
      clock: new VirtualClock(),
      settings: { midiFeedback: ["Pad"], midiLocal: TAKEN }, // the pad's LEDs, by its port's name
    });
    const get = async (path: string) => await (await fetch(`${base}${path}`)).json();
    const names = async () =>
      // deno-lint-ignore no-explicit-any
      (await get("/api/v1/midi")).participants.map((p: any) => `${p.kind}:${p.name}`);
    try {
      const res = await fetch(`${base}/api/v1/action`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "SONG_SELECT_BY_ID", params: ["song"] }),
      });
      assert.equal(res.status, 200, await res.text());
      const page = await standIn(output);
      // The reloaded page runs the stand-in (a bound on a loaded machine's reload, not a limit).
      await until("the stand-in asked", async () => {
        return (await page("globalThis.cueportMidiTest?.asked ?? null").catch(() => null)) !== null;
      }, 120_000);
      assert.deepEqual(await page("cueportMidiTest.asked"), { sysex: true }, "sysex: MTC frames");
      await page(`cueportMidiTest.plug("Pad")`);
      await until("the port listed", async () => (await names()).includes("local:Pad"), 60_000);
      const { local } = await get("/api/v1/midi");
      assert.deepEqual(local, { inputs: ["Pad"], outputs: ["Pad"], error: null });

      await page(`cueportMidiTest.play("Pad", [0x90, 36, 64])`); // index 0 of the Song: red
      const clip = async () =>
        // deno-lint-ignore no-explicit-any
        (await get("/api/v1/projects/out/playstate")).clips.find((c: any) => c.clipID === "red");
      await until("red plays", async () => (await clip())?.state === "playing", 60_000);
      assert.equal((await clip()).velocity, 64);
      const lit = [0x90, 36, FEEDBACK_SCHEMES[DEFAULT_MIDI_MAP.feedback]!.playing!];
      await until("the pad told red plays", async () => {
        const sent = await page("cueportMidiTest.sent") as { port: string; data: number[] }[];
        return sent.some((s) => s.port === "Pad" && s.data.join() === lit.join());
      }, 60_000);

      // Clock, active sensing and sysex other than an MTC full frame stay in the page.
      const relayed: string[] = [];
      const take = output.midi.take.bind(output.midi);
      output.midi.take = (message) => {
        if (message.type === "midi-in") {
          relayed.push(...message.messages.map((m) => `${m.port} ${m.data}`));
        }
        take(message);
      };
      await page(`for (let i = 0; i < 500; i++) cueportMidiTest.play("Pad", [i % 2 ? 0xf8 : 0xfe]);
        cueportMidiTest.play("Pad", [0xf0, 0x7e, 0x7f, 0x06, 0x01, 0xf7]);
        cueportMidiTest.play("Pad", [0xf0, 0x7f, 0x7f, 0x01, 0x01, 0x21, 2, 3, 4, 0xf7]);
        cueportMidiTest.play("Pad", [0x80, 36, 0])`);
      await until("the note off relayed", () => relayed.length > 1, 60_000);
      assert.deepEqual(relayed, ["Pad 240,127,127,1,1,33,2,3,4,247", "Pad 128,36,0"]);

      await page(`cueportMidiTest.unplug("Pad")`);
      await until("the port gone", async () => !(await names()).includes("local:Pad"), 60_000);
      assert.deepEqual((await get("/api/v1/midi")).local, { inputs: [], outputs: [], error: null });

      // Ports are known by id: two of one name are told apart, one with no name is named; a
      // port midiLocal does not name is neither listed nor opened.
      await page(`cueportMidiTest.plug("Keys"); cueportMidiTest.plug("Pad", "a");
        cueportMidiTest.plug("Pad", "b"); cueportMidiTest.plug("", "c")`);
      await until("three ports listed", async () => (await names()).length === 3, 60_000);
      assert.deepEqual((await get("/api/v1/midi")).local.inputs, TAKEN);
      assert.equal(await page(`cueportMidiTest.opened("Keys")`), false, "Keys not opened");
      await page(`cueportMidiTest.play("b", [0x90, 37, 9])`);
      await until("the second pad's note", () => relayed.includes("Pad (2) 144,37,9"), 60_000);
    } finally {
      await stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test("local MIDI: the player relays the page's ports and input, and opens none when off", () => {
  const told: MidiLocalEvent[] = [];
  const toPage: ToPage[] = [];
  const ports = new MidiPorts((event) => told.push(event), (message) => toPage.push(message));
  ports.pageOpened(false);
  assert.deepEqual(toPage, [{ type: "midi", open: false }], "midiLocal off: the page asks nothing");
  ports.pageOpened(["Pad"]);
  assert.deepEqual(toPage.pop(), { type: "midi", open: true, ports: ["Pad"] }, "names: those only");
  ports.send([{ port: null, data: [0x90, 36, 127] }]);
  assert.equal(toPage.length, 1, "no output port listed: nothing sent");
  const host = ports.pageHost();
  host.midi({ type: "midi-ports", inputs: ["Pad"], outputs: ["Pad"], error: null });
  host.midi({ type: "midi-in", messages: [{ port: "Pad", data: [0x90, 36, 64] }] });
  ports.send([{ port: "Pad", data: [0x90, 36, 127] }]);
  assert.deepEqual(toPage[1], {
    type: "midi-send",
    messages: [{ port: "Pad", data: [0x90, 36, 127] }],
  });
  host.closed();
  assert.deepEqual(told, [
    { type: "ports", inputs: ["Pad"], outputs: ["Pad"], error: null },
    { type: "input", messages: [{ port: "Pad", data: [0x90, 36, 64] }] },
    { type: "ports", inputs: [], outputs: [], error: null },
  ]);
  assert.deepEqual(ports.current(), { type: "ports", inputs: [], outputs: [], error: null });
});

/**
 * The local MIDI endpoint (`server/midi/local.ts`) alone: the ports the player lists, taken
 * whole or by the names of `midiLocal`; input decoded per port; feedback encoded for the
 * output ports, system exclusive left out; and the setting's forms.
 */
import assert from "node:assert/strict";
import type { DeviceRegistry } from "../../../server/auth/devices.ts";
import { MidiAdmission } from "../../../server/midi/admit.ts";
import { LocalMidi } from "../../../server/midi/local.ts";
import type { MidiMessage, MidiSource } from "../../../server/midi/messages.ts";
import type { MidiSendParams } from "../../../protocol/methods.ts";
import { LocalMidiMessage } from "../../../protocol/output.ts";
import { SETTINGS } from "../../../protocol/settings.ts";

function open(ports: true | string[]) {
  const sent: MidiSendParams[] = [];
  const got: Array<{ messages: readonly MidiMessage[]; from: MidiSource }> = [];
  const joined: string[] = [];
  const local = new LocalMidi({ ports, send: (p) => Promise.resolve(sent.push(p)) });
  local.onMessages((messages, from) => got.push({ messages, from }));
  local.onJoined((source) => joined.push(source.name));
  return { local, sent, got, joined };
}

Deno.test("local MIDI: the ports listed are sources of kind local; input is decoded per port", () => {
  const { local, got, joined } = open(true);
  assert.deepEqual(local.participants(), [], "no output, no ports");
  assert.deepEqual(local.localPorts(), { inputs: [], outputs: [], error: "no output running" });
  local.take({ type: "ports", inputs: ["Pad", "Keys"], outputs: ["Pad"], error: null });
  assert.deepEqual(joined, ["Pad", "Keys"]);
  assert.deepEqual(local.participants().map((p) => `${p.kind}:${p.name}`), [
    "local:Pad",
    "local:Keys",
  ]);
  local.take({
    type: "input",
    messages: [
      { port: "Pad", data: [0x90, 36, 64] },
      { port: "Pad", data: [0xb0, 1, 2] },
      { port: "Keys", data: [0x80, 40, 0] },
      { port: "Gone", data: [0x90, 1, 1] },
    ],
  });
  assert.deepEqual(got.map((g) => [g.from.name, g.messages.map((m) => m.type)]), [
    ["Pad", ["noteOn", "controlChange"]],
    ["Keys", ["noteOff"]],
  ]);
  assert.equal(got[0]!.from.kind, "local");
  local.take({ type: "ports", inputs: [], outputs: [], error: "the player is down" });
  assert.deepEqual(local.participants(), []);
  assert.deepEqual(local.localPorts(), { inputs: [], outputs: [], error: "the player is down" });
});

Deno.test("local MIDI: midiLocal names the ports taken; feedback goes to them, no sysex", () => {
  const { local, sent, got } = open(["Pad"]);
  local.send([{ type: "noteOn", channel: 1, note: 36, velocity: 127 }]);
  assert.equal(sent.length, 0, "no output port, nothing sent");
  local.take({ type: "ports", inputs: ["Pad", "Keys"], outputs: ["Pad", "Keys"], error: null });
  assert.deepEqual(local.participants().map((p) => p.name), ["Pad"]);
  local.take({ type: "input", messages: [{ port: "Keys", data: [0x90, 36, 64] }] });
  assert.equal(got.length, 0, "a port not named is not read");
  local.send([
    { type: "noteOn", channel: 1, note: 36, velocity: 127 },
    { type: "sysex", data: new Uint8Array([0x7e, 1]) },
  ]);
  assert.deepEqual(sent, [{ messages: [{ port: "Pad", data: [0x90, 36, 127] }] }]);
  local.sendTo([{ type: "controlChange", channel: 1, controller: 1, value: 2 }], [
    { kind: "local", address: "Keys", name: "Keys" },
    { kind: "rtp", address: "10.0.0.5:5004", name: "Pad" },
  ]);
  assert.equal(sent.length, 1, "no local port of those names taken: nothing sent");
  local.sendTo([{ type: "controlChange", channel: 1, controller: 1, value: 2 }], [
    { kind: "local", address: "Pad", name: "Pad" },
  ]);
  assert.deepEqual(sent[1], { messages: [{ port: "Pad", data: [0xb0, 1, 2] }] });
});

Deno.test("local MIDI: the midiLocal setting takes on, off and port names", () => {
  const schema = SETTINGS.midiLocal.schema;
  assert.equal(schema.parse(undefined), true);
  assert.equal(schema.parse("off"), false);
  assert.equal(schema.parse("on"), true);
  assert.deepEqual(schema.parse("Launchpad X, IAC Driver Bus 1"), [
    "Launchpad X",
    "IAC Driver Bus 1",
  ]);
  assert.ok(!schema.safeParse(7).success);
});

Deno.test("local MIDI: a local port never takes a network device's grant, nor a midiAllow subnet", async () => {
  const added: Array<Record<string, unknown>> = [];
  const stored = [
    {
      origin: "midi",
      address: "10.0.0.5",
      name: "Approved pad",
      deviceId: "dev-n",
      scopes: ["control"],
    },
  ];
  const devices = {
    list: () => [...stored, ...added],
    add: (d: Record<string, unknown>) => Promise.resolve(void added.push(d)),
    revoke: () => Promise.resolve(),
  } as unknown as DeviceRegistry;
  const exemptOff = { exempted: () => null };
  const admission = new MidiAdmission({ devices, policy: exemptOff, allow: ["10.1.0.0/16"] });
  const port = (name: string) => ({ kind: "local" as const, address: name, name });
  assert.equal(admission.grantOf(port("10.0.0.5")), null, "a port named as a device's IP");
  assert.equal(admission.grantOf(port("10.1.2.3")), null, "a port named inside midiAllow");
  assert.equal(
    admission.grantOf({ kind: "rtp", address: "10.0.0.5", name: "x" })?.deviceId,
    "dev-n",
  );
  assert.ok(admission.grantOf({ kind: "rtp", address: "10.1.2.3", name: "x" }), "subnet: rtp only");
  // Approved, the port's device is stored as local:<name> and lets the port in.
  assert.equal(admission.admit(port("10.0.0.5")), false);
  const [request] = admission.pending();
  assert.equal(request!.address, "local:10.0.0.5");
  await admission.decide(request!.requestId, true);
  assert.equal(added[0]!.address, "local:10.0.0.5");
  assert.ok(admission.grantOf(port("10.0.0.5")), "approved as local:<name>");
  // Exempt as local under the policy's localhost rule.
  const grant = { device: "localhost", scopes: ["view", "control"] } as const;
  const exemptOn = { exempted: ({ isLocal }: { isLocal: boolean }) => (isLocal ? grant : null) };
  const local = new MidiAdmission({ devices, policy: exemptOn, allow: [] });
  assert.equal(local.grantOf(port("Pad")), grant);
});

Deno.test("local MIDI: a port unplugged while its notes sound releases them (a Gate Clip stops)", () => {
  const { local, got } = open(true);
  local.take({ type: "ports", inputs: ["Pad", "Keys"], outputs: [], error: null });
  local.take({
    type: "input",
    messages: [
      { port: "Pad", data: [0x90, 36, 100] },
      { port: "Pad", data: [0x91, 38, 100] },
      { port: "Pad", data: [0x90, 40, 100] },
      { port: "Pad", data: [0x90, 40, 0] }, // released already: a note on of velocity 0
      { port: "Keys", data: [0x90, 60, 100] },
    ],
  });
  got.length = 0;
  local.take({ type: "ports", inputs: ["Keys"], outputs: [], error: null });
  assert.deepEqual(got, [{
    messages: [
      { type: "noteOff", channel: 1, note: 36, velocity: 0 },
      { type: "noteOff", channel: 2, note: 38, velocity: 0 },
    ],
    from: { kind: "local", address: "Pad", name: "Pad" },
  }]);
  local.take({ type: "ports", inputs: [], outputs: [], error: "the player is down" });
  assert.deepEqual(got[1]!.messages, [{ type: "noteOff", channel: 1, note: 60, velocity: 0 }]);
  local.take({ type: "ports", inputs: ["Pad"], outputs: [], error: null });
  assert.equal(got.length, 2, "back again: nothing held, nothing released");
});

Deno.test("local MIDI: an MTC full frame is the one system exclusive a port forwards", () => {
  const frame = [0xf0, 0x7f, 0x7f, 0x01, 0x01, 0x21, 2, 3, 4, 0xf7];
  assert.ok(LocalMidiMessage.safeParse({ port: "Pad", data: frame }).success);
  const identity = [0xf0, 0x7e, 0x7f, 0x06, 0x01, 0xf7];
  assert.ok(!LocalMidiMessage.safeParse({ port: "Pad", data: identity }).success, "other sysex");
  const long = [0xf0, 0x7f, 0x7f, 0x01, 0x02, 0x21, 2, 3, 4, 0xf7]; // user bits, not a frame
  assert.ok(!LocalMidiMessage.safeParse({ port: "Pad", data: long }).success);
  const { local, got } = open(true);
  local.take({ type: "ports", inputs: ["Pad"], outputs: [], error: null });
  local.take({ type: "input", messages: [{ port: "Pad", data: frame }] });
  assert.deepEqual(got[0]!.messages, [{ type: "sysex", data: Uint8Array.from(frame.slice(1, 9)) }]);
});

/**
 * The MIDI transport's parts without a player: the map's rules (bindings,
 * scaling, triggers, 14-bit pairs, program numbers), values coalesced per
 * Control, timecode forwarded, learn's endings, and admission by address.
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import { DEFAULT_MIDI_MAP, MidiMap } from "../../../protocol/midi.ts";
import type { Project } from "../../../protocol/model.ts";
import { type Core, Policy } from "../../../server/core/mod.ts";
import type { DeviceRegistry } from "../../../server/auth/devices.ts";
import { MidiFeedback } from "../../../server/midi/feedback.ts";
import { MidiLearn } from "../../../server/midi/learn.ts";
import { MidiMapper } from "../../../server/midi/map.ts";
import type { MidiMessage } from "../../../server/midi/messages.ts";
import { isTimecode, MidiAdmission, MidiServer } from "../../../server/midi/mod.ts";
import { VirtualClock } from "../../../player/clock.ts";
import { MidiStatusView } from "../../../server/core/operations/midi.ts";
import { fixtureProject } from "../../../tools/testing/fixture.ts";
import { LOCAL_DAW, MemoryEndpoint, REMOTE_PAD } from "./_memory_endpoint.ts";

function withMap(map: z.input<typeof MidiMap>): Project {
  return { ...fixtureProject(), midi: MidiMap.parse(map) };
}

Deno.test("map: bindings win, CCs scale or trigger, a program binding without number appends it", () => {
  const project = withMap({
    bindings: [
      { kind: "controlChange", number: 7, action: "OUTPUT_LEVEL_IN", min: 0.5, max: 1 },
      { kind: "controlChange", number: 64, action: "PLAY_IN", value: "trigger" },
      { channel: 2, kind: "programChange", action: "SONG_SELECT_IN" },
      { kind: "noteOn", number: 36, action: "TRIGGER_CLIP_IN", params: ["c7"] },
    ],
  });
  const mapper = new MidiMapper();
  const ctx = { project, songClips: ["c1", "c2"] };
  const calls = (m: MidiMessage) => mapper.calls(m, ctx);
  const cc = (controller: number, value: number) =>
    calls({ type: "controlChange", channel: 9, controller, value });
  assert.deepEqual(cc(7, 0), [{ name: "OUTPUT_LEVEL_IN", params: [0.5] }]);
  assert.deepEqual(cc(64, 63), []);
  assert.deepEqual(cc(64, 127), [{ name: "PLAY_IN", params: [] }]);
  assert.deepEqual(calls({ type: "programChange", channel: 2, program: 4 }), [
    { name: "SONG_SELECT_IN", params: [4] },
  ]);
  assert.deepEqual(calls({ type: "noteOn", channel: 1, note: 36, velocity: 99 }), [
    { name: "TRIGGER_CLIP_IN", params: ["c7"], velocity: 99 },
  ]);
  // The default map still reads what no binding takes.
  assert.deepEqual(calls({ type: "noteOn", channel: 1, note: 37, velocity: 5 }), [
    { name: "PLAY_CLIP_BY_INDEX_IN", params: [1], velocity: 5 },
  ]);
  assert.deepEqual(calls({ type: "noteOn", channel: 2, note: 37, velocity: 5 }), [], "channel 1");
});

Deno.test("map: program numbers match pgmIds as numbers; note off releases Gate Clips only", () => {
  const project = withMap({});
  project.songs[1]!.pgmId = "020";
  const mapper = new MidiMapper();
  const ctx = { project, songClips: project.songs[0]!.clips };
  assert.deepEqual(mapper.calls({ type: "programChange", channel: 1, program: 19 }, ctx), [
    { name: "SONG_SELECT_PGM_ID", params: ["020"] },
  ]);
  assert.deepEqual(mapper.calls({ type: "programChange", channel: 1, program: 99 }, ctx), [
    { name: "SONG_SELECT_PGM_ID", params: ["100"] },
  ]);
  const off = (note: number) =>
    mapper.calls({ type: "noteOff", channel: 1, note, velocity: 0 }, ctx);
  assert.deepEqual(off(36), [], "c1 is no Gate Clip");
  assert.deepEqual(off(37), [{ name: "RELEASE_CLIP_BY_INDEX_IN", params: [1] }]);
});

Deno.test("map: a 14-bit pair's coarse value takes effect, its fine value refines it", () => {
  const mapper = new MidiMapper();
  const ctx = { project: undefined, songClips: [] };
  const cc = (controller: number, value: number) =>
    mapper.calls({ type: "controlChange", channel: 1, controller, value }, ctx);
  assert.deepEqual(cc(3, 127), [{ name: "SET_CONTROL", params: ["C", 1] }]);
  assert.deepEqual(cc(35, 127), [{ name: "SET_CONTROL", params: ["C", 1] }]);
  assert.deepEqual(cc(3, 0), [{ name: "SET_CONTROL", params: ["C", 0] }]);
  assert.deepEqual(cc(35, 1), [{ name: "SET_CONTROL", params: ["C", 1 / 16383] }]);
  assert.deepEqual(cc(4, 64), [{ name: "SET_CONTROL", params: ["D", 64 / 127] }], "D is 7-bit");
  assert.deepEqual(cc(27, 64), [], "CC 27 drives nothing");
  assert.equal(DEFAULT_MIDI_MAP.useDefault, true);
});

Deno.test("learn: the next bindable message answers; a new learn replaces; the signal cancels; the cap ends it", async () => {
  const clock = new VirtualClock(0);
  const learn = new MidiLearn({ capMs: 60_000, clock });
  const first = learn.wait({ action: "PLAY_IN", params: [] });
  const second = learn.wait({ action: "SET_CONTROL", params: ["A"], value: "param", max: 2 });
  assert.deepEqual(await first, { learned: false, reason: "replaced" });
  assert.equal(learn.offer({ type: "clock" }, LOCAL_DAW), false);
  assert.equal(
    learn.offer({ type: "noteOff", channel: 1, note: 3, velocity: 0 }, LOCAL_DAW),
    false,
  );
  assert.ok(learn.offer({ type: "controlChange", channel: 4, controller: 9, value: 1 }, LOCAL_DAW));
  const outcome = await second;
  assert.ok(outcome.learned);
  assert.deepEqual(outcome.binding, {
    channel: 4,
    kind: "controlChange",
    number: 9,
    action: "SET_CONTROL",
    params: ["A"],
    value: "param",
    min: 0,
    max: 2,
  });
  const abort = new AbortController();
  const third = learn.wait({ action: "PLAY_IN", params: [] }, abort.signal);
  abort.abort();
  assert.deepEqual(await third, { learned: false, reason: "cancelled" });
  const capped = learn.wait({ action: "PLAY_IN", params: [] });
  let isSettled = false;
  capped.catch(() => {}).finally(() => isSettled = true);
  clock.advance(59_999);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(isSettled, false, "the cap has not run out");
  assert.equal(learn.isLearning, true);
  clock.advance(1);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(isSettled, true, "the cap ran out on the clock given");
  await assert.rejects(capped, { code: "TIMEOUT" });
  assert.equal(learn.isLearning, false);
});

/** A core without a player: actions are recorded and held until released. */
function stubCore() {
  const runs: Array<{ input: Record<string, unknown>; done: () => void }> = [];
  const core = {
    model: {
      activeProjectId: null,
      project: () => undefined,
      playstate: () => undefined,
      live: () => ({ controls: {} }),
    },
    bus: { subscribe: () => () => {} },
    requireApiAccess: () => {},
    runAction: (input: Record<string, unknown>) =>
      new Promise((resolve) => runs.push({ input, done: () => resolve({ ok: true }) })),
  } as unknown as Core;
  return { core, runs };
}

function serverOver(core: Core, timecode?: { feed: (m: readonly MidiMessage[]) => void }) {
  const policy = new Policy({
    core,
    authenticator: { authenticate: () => Promise.reject(new Error("no tokens here")) },
    isLocalhostExempt: true,
  });
  const devices = { list: () => [] } as unknown as DeviceRegistry;
  const admission = new MidiAdmission({ devices, policy, allow: ["10.0.0.0/8"] });
  return new MidiServer(core, { policy, admission, timecode, feedback: [] });
}

Deno.test("server: a CC stream is coalesced per Control: one call at the player, the last value next", async () => {
  const { core, runs } = stubCore();
  const server = serverOver(core);
  const endpoint = new MemoryEndpoint();
  server.attach(endpoint);
  const stream = Array.from({ length: 100 }, (_, i): MidiMessage => ({
    type: "controlChange",
    channel: 1,
    controller: 1,
    value: i,
  }));
  endpoint.deliver(stream);
  endpoint.deliver([{ type: "controlChange", channel: 1, controller: 2, value: 127 }]);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(runs.map((r) => r.input.params), [["A", 0], ["B", 1]]);
  runs[0]!.done();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(runs.map((r) => r.input.params)[2], ["A", 99 / 127], "the last value");
  assert.equal(server.status().counts.dropped, 98);
  server.close();
});

Deno.test("server: timecode goes to the reader given, and runs nothing; an unknown source is refused", async () => {
  const { core, runs } = stubCore();
  const fed: MidiMessage[] = [];
  const server = serverOver(core, { feed: (m) => fed.push(...m) });
  const endpoint = new MemoryEndpoint();
  server.attach(endpoint);
  const fullFrame: MidiMessage = {
    type: "sysex",
    data: new Uint8Array([0x7f, 0x7f, 0x01, 0x01, 0x21, 0x02, 0x03, 0x04]),
  };
  const quarter: MidiMessage = { type: "quarterFrame", piece: 0, value: 4 };
  assert.ok(isTimecode(fullFrame) && isTimecode(quarter));
  assert.ok(!isTimecode({ type: "sysex", data: new Uint8Array([0x7e, 0x7f, 0x06, 0x01]) }));
  endpoint.deliver([quarter, fullFrame, { type: "start" }]);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(fed, [quarter, fullFrame]);
  assert.deepEqual(runs.map((r) => r.input.name), ["PLAY_IN"]);
  endpoint.deliver([quarter, { type: "stop" }], REMOTE_PAD);
  endpoint.deliver([{ type: "stop" }], { kind: "rtp", address: "10.1.2.3", name: "allowed" });
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(fed.length, 2, "timecode of a refused source is dropped too");
  assert.deepEqual(runs.map((r) => r.input.name), ["PLAY_IN", "STOP_IN"], "midiAllow lets 10/8 in");
  assert.equal(server.admission.pending()[0]!.address, REMOTE_PAD.address);
  assert.equal(server.admission.admit(REMOTE_PAD), false);
  assert.equal(server.admission.pending().length, 1, "listed once per address");
  server.close();
});

Deno.test("server: a learn binds only a source that may control; a view-only one is not taken", async () => {
  const { core } = stubCore();
  const policy = new Policy({
    core,
    authenticator: { authenticate: () => Promise.reject(new Error("no tokens here")) },
    isLocalhostExempt: true,
  });
  const viewer = { kind: "rtp" as const, address: "192.168.7.30", name: "Viewer" };
  const device = { origin: "midi", address: viewer.address, name: "Viewer", deviceId: "dev-v" };
  const devices = { list: () => [{ ...device, scopes: ["view"] }] } as unknown as DeviceRegistry;
  const admission = new MidiAdmission({ devices, policy, allow: [] });
  const server = new MidiServer(core, { policy, admission, feedback: [] });
  const endpoint = new MemoryEndpoint();
  server.attach(endpoint);
  const learned = server.learn({ action: "PLAY_IN", params: [] });
  endpoint.deliver([{ type: "noteOn", channel: 1, note: 60, velocity: 1 }], viewer);
  assert.notEqual(server.status().learning, null, "still learning");
  // The status is what its one schema says (protocol/midi.ts, and the participants).
  assert.deepEqual(MidiStatusView.parse(server.status()).learning, {
    action: "PLAY_IN",
    params: [],
  });
  endpoint.deliver([{ type: "noteOn", channel: 1, note: 61, velocity: 1 }], LOCAL_DAW);
  const outcome = await learned;
  assert.ok(outcome.learned);
  assert.equal(outcome.binding.number, 61);
  server.close();
});

Deno.test("feedback: a carrier without sendTo is sent nothing unless every participant is a target", () => {
  const project = fixtureProject();
  const model = {
    activeProjectId: project.id,
    project: () => project,
    playstate: () => ({ activeSongID: project.songs[0]!.id, clips: [] }),
    live: () => ({ controls: {} }),
  } as unknown as Core["model"];
  // Two participants on one machine: the DAW and a pad, told apart by name.
  const pad = { kind: "rtp" as const, address: "127.0.0.1", name: "Pad" };
  const sent: MidiMessage[][] = [];
  let present = [LOCAL_DAW, pad];
  const port = { onMessages: () => {}, send: (m: readonly MidiMessage[]) => sent.push([...m]) };
  const feedback = new MidiFeedback(model, {
    targets: ["Pad"],
    grantOf: () => ({ device: "local" }),
  });
  const withParticipants = { ...port, participants: () => present };
  feedback.deliver(withParticipants, feedback.full());
  assert.equal(sent.length, 0, "the DAW beside the pad would get it too");
  present = [pad];
  feedback.deliver(withParticipants, feedback.full());
  assert.equal(sent.length, 1, "the pad alone: send() reaches only it");
});

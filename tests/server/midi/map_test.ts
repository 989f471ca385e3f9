import assert from "node:assert/strict";
import { type MapContext, MidiMapper } from "../../../server/midi/map.ts";
import type { MidiMessage, MidiSource } from "../../../server/midi/messages.ts";

const CTX: MapContext = { project: undefined, songClips: [] };
const DAW: MidiSource = { kind: "rtp", address: "10.0.0.2", name: "DAW" };
const FADERS: MidiSource = { kind: "rtp", address: "10.0.0.3", name: "Faders" };
const cc = (controller: number, value: number, channel = 1): MidiMessage => ({
  type: "controlChange",
  channel,
  controller,
  value,
});
/** The Control values a message sets, as [letter, value] pairs. */
const values = (mapper: MidiMapper, m: MidiMessage, from: MidiSource) =>
  mapper.calls(m, CTX, from).map((c) => c.params);

Deno.test("MidiMapper: a 7-bit controller's CC sets its Control to value/127", () => {
  const mapper = new MidiMapper();
  assert.deepEqual(values(mapper, cc(1, 127), DAW), [["A", 1]]);
  assert.deepEqual(values(mapper, cc(2, 64), DAW), [["B", 64 / 127]]);
});

Deno.test("MidiMapper: once a pair is seen, a coarse-only move takes effect and the fine refines it", () => {
  const mapper = new MidiMapper();
  assert.deepEqual(values(mapper, cc(1, 64), DAW), [["A", 64 / 127]]);
  assert.deepEqual(values(mapper, cc(33, 1), DAW), [["A", (64 * 128 + 1) / 16383]]);
  // MIDI 1.0: an MSB alone takes effect (its LSB reads as 0), it is not swallowed.
  assert.deepEqual(values(mapper, cc(1, 100), DAW), [["A", 100 * 128 / 16383]]);
  assert.deepEqual(values(mapper, cc(33, 5), DAW), [["A", (100 * 128 + 5) / 16383]]);
});

Deno.test("MidiMapper: pairs are kept per source and channel", () => {
  const mapper = new MidiMapper();
  values(mapper, cc(1, 10), DAW);
  values(mapper, cc(33, 0), DAW); // the DAW's A is a 14-bit pair now
  // Another source's coarse value neither waits nor joins the DAW's pair.
  assert.deepEqual(values(mapper, cc(1, 127), FADERS), [["A", 1]]);
  assert.deepEqual(values(mapper, cc(33, 3), DAW), [["A", (10 * 128 + 3) / 16383]]);
  // Channel 2 is not the default map's: nothing; the DAW's pair on channel 1 is untouched.
  assert.deepEqual(values(mapper, cc(1, 50, 2), DAW), []);
  assert.deepEqual(values(mapper, cc(33, 4), DAW), [["A", (10 * 128 + 4) / 16383]]);
});

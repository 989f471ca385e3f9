/**
 * Network MIDI sessions against npm `rtpmidi` (an AppleMIDI implementation
 * nobody here wrote), on loopback: opened from its side and from ours,
 * messages both ways, a refusal, a peer's restart.
 */
import assert from "node:assert/strict";
import type { MidiMessage, MidiSource } from "../../../../server/midi/messages.ts";
import { type RtpMidiEvent, RtpMidiNetwork } from "../../../../server/midi/rtp/mod.ts";
import { EventLog } from "./_events.ts";
import { MidiPeer, peerIgnore } from "./_peer.ts";

/** A message received, with its source. */
interface Received {
  message: MidiMessage;
  from: MidiSource;
}

/** A session on loopback, its events and what it received. */
function session(options: ConstructorParameters<typeof RtpMidiNetwork>[0] = {}) {
  const events = new EventLog<RtpMidiEvent>();
  const received = new EventLog<Received>();
  const network = new RtpMidiNetwork({
    port: 0,
    hosts: ["127.0.0.1"],
    name: "Cueport test",
    onEvent: (e) => events.push(e),
    ...options,
  });
  network.onMessages((messages, from) => {
    for (const message of messages) received.push({ message, from });
  });
  network.start();
  return { network, events, received };
}

const joined = (e: RtpMidiEvent) => e.type === "joined";

/** Waits until `count` messages arrived after `from`; returns them. */
async function messages(
  received: EventLog<Received>,
  from: number,
  count: number,
): Promise<MidiMessage[]> {
  let seen = 0;
  await received.waitFor(() => ++seen >= count, `${count} messages`, from);
  return received.events.slice(from, from + count).map((e) => e.message);
}

const SHOW: { bytes: number[]; message: MidiMessage }[] = [
  { bytes: [0x90, 60, 64], message: { type: "noteOn", channel: 1, note: 60, velocity: 64 } },
  { bytes: [0x80, 60, 0], message: { type: "noteOff", channel: 1, note: 60, velocity: 0 } },
  { bytes: [0xc2, 5], message: { type: "programChange", channel: 3, program: 5 } },
  {
    bytes: [0xb0, 7, 100],
    message: { type: "controlChange", channel: 1, controller: 7, value: 100 },
  },
  { bytes: [0xf1, 0x23], message: { type: "quarterFrame", piece: 2, value: 3 } },
];

Deno.test({
  ...peerIgnore(),
  name: "rtp: a session opened from the peer's side carries messages both ways",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { network, events, received } = session();
    const peer = await MidiPeer.start("peer one");
    try {
      await peer.command({ cmd: "invite", host: "127.0.0.1", port: network.port });
      const join = await events.waitFor(joined, "the peer joining");
      assert.deepEqual(join.type === "joined" && join.participant.name, "peer one");
      assert.deepEqual(join.type === "joined" && join.participant.initiator, "peer");
      await peer.log.waitFor((e) => e.event === "joined", "the peer's stream");
      // rtpmidi sends MIDI once its own clock sync (it runs it as initiator) completed.
      await events.waitFor((e) => e.type === "synced", "rtpmidi's clock sync answered");
      for (const { bytes } of SHOW) await peer.command({ cmd: "send", bytes });
      const got = await messages(received, 0, SHOW.length);
      assert.deepEqual(got, SHOW.map((s) => s.message));
      assert.deepEqual(received.events[0]!.from, {
        kind: "rtp",
        address: "127.0.0.1",
        name: "peer one",
      });

      const from = peer.log.events.length;
      network.send(SHOW.map((s) => s.message));
      const want = SHOW.flatMap((s) => s.bytes);
      await peer.log.waitFor(() => peer.bytesSince(from).length >= want.length, "our messages");
      assert.deepEqual(peer.bytesSince(from), want);
      // Closing says goodbye: the peer ends its stream.
      await network.close();
      await peer.log.waitFor((e) => e.event === "left", "the peer told BY");
    } finally {
      await peer.stop();
      await network.close();
    }
  },
});

Deno.test({
  ...peerIgnore(),
  name: "rtp: a session opened from our side, with clock sync both ways",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { network, events, received } = session();
    const peer = await MidiPeer.start("peer two");
    try {
      network.invite("127.0.0.1", peer.port);
      const join = await events.waitFor(joined, "joining the peer");
      assert.deepEqual(join.type === "joined" && join.participant.initiator, "us");
      assert.deepEqual(join.type === "joined" && join.participant.ssrc, peer.ssrc);
      // Our clock sync, started on joining, completes with the peer's answer.
      await events.waitFor((e) => e.type === "synced", "our clock sync answered");
      // rtpmidi, invited, never syncs by itself and sends no MIDI before a sync it started.
      const synced = events.events.length;
      await peer.command({ cmd: "sync" });
      await events.waitFor((e) => e.type === "synced", "the peer's clock sync", synced);
      const from = received.events.length;
      await peer.command({ cmd: "send", bytes: [0xb1, 20, 99] });
      const [cc] = await messages(received, from, 1);
      assert.deepEqual(cc, { type: "controlChange", channel: 2, controller: 20, value: 99 });
      const before = peer.log.events.length;
      network.send([{ type: "noteOn", channel: 10, note: 36, velocity: 64 }]);
      await peer.log.waitFor(() => peer.bytesSince(before).length >= 3, "our note");
      assert.deepEqual(peer.bytesSince(before), [0x99, 36, 64]);
    } finally {
      await peer.stop();
      await network.close();
    }
  },
});

Deno.test({
  ...peerIgnore(),
  name: "rtp: an invitation admit refuses is answered NO, and no session opens",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const asked: string[] = [];
    const { network, events } = session({
      admit: (address, name) => {
        asked.push(`${address} ${name}`);
        return false;
      },
    });
    const peer = await MidiPeer.start("stranger");
    try {
      await peer.command({ cmd: "invite", host: "127.0.0.1", port: network.port });
      const refused = await events.waitFor((e) => e.type === "refused", "the refusal");
      assert.deepEqual(refused, { type: "refused", address: "127.0.0.1", name: "stranger" });
      await peer.log.waitFor(
        (e) => e.event === "control" && e.command === "invitation_rejected",
        "the peer told NO",
      );
      assert.deepEqual(asked, ["127.0.0.1 stranger"]);
      assert.deepEqual(network.participants(), []);
      assert.equal(events.events.some(joined), false);
    } finally {
      await peer.stop(false);
      await network.close();
    }
  },
});

Deno.test({
  ...peerIgnore(),
  name: "rtp: a peer that restarts and invites again replaces its old participant",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { network, events, received } = session();
    const first = await MidiPeer.start("drummer");
    let second: MidiPeer | null = null;
    try {
      await first.command({ cmd: "invite", host: "127.0.0.1", port: network.port });
      await events.waitFor(joined, "the first run joining");
      await first.stop(false); // a crash: no BY
      second = await MidiPeer.start("drummer", first.port);
      const mark = events.events.length;
      await second.command({ cmd: "invite", host: "127.0.0.1", port: network.port });
      const left = await events.waitFor((e) => e.type === "left", "the old one leaving", mark);
      assert.equal(left.type === "left" && left.reason, "replaced");
      assert.equal(left.type === "left" && left.participant.ssrc, first.ssrc);
      const join = await events.waitFor(joined, "the second run joining", mark);
      assert.equal(join.type === "joined" && join.participant.ssrc, second.ssrc);
      assert.deepEqual(network.participants().map((p) => p.ssrc), [second.ssrc]);
      await events.waitFor((e) => e.type === "synced", "its clock sync", mark);
      const from = received.events.length;
      await second.command({ cmd: "send", bytes: [0x90, 40, 64] });
      const [note] = await messages(received, from, 1);
      assert.deepEqual(note, { type: "noteOn", channel: 1, note: 40, velocity: 64 });
    } finally {
      await second?.stop();
      await network.close();
    }
  },
});

Deno.test({
  ...peerIgnore(),
  name: "rtp: a host we invited that stops answering is dropped and invited again until it is back",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    let now = 1_000_000;
    const { network, events } = session({
      tickMs: 0,
      now: () => now,
      timeoutMs: 30_000,
      backoff: { firstMs: 1000, maxMs: 4000 },
    });
    const first = await MidiPeer.start("host");
    let second: MidiPeer | null = null;
    try {
      network.invite("127.0.0.1", first.port);
      await events.waitFor(joined, "joining the host");
      await first.stop(false); // gone without BY
      now += 31_000;
      network.tick();
      const left = await events.waitFor((e) => e.type === "left", "the silent host dropped");
      assert.equal(left.type === "left" && left.reason, "timeout");
      second = await MidiPeer.start("host", first.port);
      const mark = events.events.length;
      now += 4_000; // the invitation's backoff passed
      network.tick();
      const join = await events.waitFor(joined, "the host back", mark);
      assert.equal(join.type === "joined" && join.participant.ssrc, second.ssrc);
      assert.equal(join.type === "joined" && join.participant.initiator, "us");
    } finally {
      await second?.stop();
      await network.close();
    }
  },
});

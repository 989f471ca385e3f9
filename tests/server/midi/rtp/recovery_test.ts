/**
 * Packets lost on purpose between two sessions and recovered through the
 * journal, on real UDP (a relay drops chosen RTP-MIDI packets); and the
 * journal as npm `rtpmidi` reads it, trimmed by its receiver feedback.
 * `rtpmidi` sends no journal of its own (its packets never set `J`), so
 * recovery is tested in the direction where a journal exists: ours.
 */
import assert from "node:assert/strict";
import type { MidiMessage } from "../../../../server/midi/messages.ts";
import { type RtpMidiEvent, RtpMidiNetwork } from "../../../../server/midi/rtp/mod.ts";
import { EventLog } from "./_events.ts";
import { MidiPeer, type PeerEvent, peerIgnore } from "./_peer.ts";
import { Relay } from "./_relay.ts";
import { cc } from "../../../../tools/testing/midi.ts";

function session(name: string) {
  const events = new EventLog<RtpMidiEvent>();
  const received = new EventLog<MidiMessage>();
  const network = new RtpMidiNetwork({
    port: 0,
    hosts: ["127.0.0.1"],
    name,
    onEvent: (e) => events.push(e),
  });
  network.onMessages((messages) => messages.forEach((m) => received.push(m)));
  network.start();
  return { network, events, received };
}

Deno.test({
  name: "rtp: packets dropped between two sessions are recovered from the journal, once",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const receiver = session("receiver");
    const sender = session("sender");
    const relay = new Relay(receiver.network.port);
    try {
      sender.network.invite("127.0.0.1", relay.port);
      await sender.events.waitFor((e) => e.type === "joined", "the session through the relay");
      await receiver.events.waitFor((e) => e.type === "joined", "the receiver's side");
      sender.network.send([{ type: "noteOn", channel: 1, note: 60, velocity: 100 }, cc(7, 1)]);
      let seen = 0;
      await receiver.received.waitFor(() => ++seen === 2, "the first packet");

      relay.dropNext = 4;
      sender.network.send([cc(7, 50)]);
      sender.network.send([{ type: "programChange", channel: 1, program: 9 }]);
      sender.network.send([{ type: "noteOff", channel: 1, note: 60, velocity: 0 }]);
      sender.network.send([cc(7, 80)]);
      sender.network.send([cc(10, 5)]);
      const recovered = await receiver.events.waitFor(
        (e) => e.type === "recovered",
        "the recovery",
      );
      assert.equal(relay.dropped.length, 4);
      assert.equal(recovered.type === "recovered" && recovered.lost, 4);
      seen = 0;
      const mark = 2;
      await receiver.received.waitFor(() => ++seen === 4, "the recovered and the next", mark);
      assert.deepEqual(receiver.received.events.slice(mark), [
        { type: "programChange", channel: 1, program: 9 },
        cc(7, 80), // the last value, not 50
        { type: "noteOff", channel: 1, note: 60, velocity: 0 },
        cc(10, 5),
      ]);
      sender.network.send([cc(11, 1)]);
      await receiver.received.waitFor((m) => m.type === "controlChange" && m.controller === 11, "");
      assert.equal(receiver.received.events.length, 7); // nothing recovered twice
      const [joined] = receiver.network.participants();
      assert.deepEqual([joined!.lost, joined!.recovered], [4, 3]);
    } finally {
      relay.close();
      await sender.network.close();
      await receiver.network.close();
    }
  },
});

/** The journal headers as rtpmidi parsed them. */
function journalHeaders(packet: PeerEvent) {
  const { checkpoint, channels } = packet.journal as { checkpoint: number; channels: unknown[] };
  return { checkpoint, channels };
}

/** The table of contents of the channel journal `at` octets after the journal header. */
function toc(packet: PeerEvent, at: number): number {
  return (packet.journal as { bytes: number[] }).bytes[3 + at + 2]!;
}

Deno.test({
  ...peerIgnore(),
  name: "rtp: rtpmidi reads our journal, and its receiver feedback trims it",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { network, events } = session("Cueport");
    const peer = await MidiPeer.start("reader");
    const packet = (from: number) =>
      peer.log.waitFor((e) => e.event === "packet", "a packet at the peer", from);
    try {
      await peer.command({ cmd: "invite", host: "127.0.0.1", port: network.port });
      await events.waitFor((e) => e.type === "joined", "the peer joining");
      let from = peer.log.events.length;
      network.send([cc(7, 1)]);
      const first = await packet(from);
      assert.equal(first.journal, null); // nothing before it
      from = peer.log.events.length;
      network.send([{ type: "programChange", channel: 2, program: 3 }]);
      const second: PeerEvent = await packet(from);
      // rtpmidi finds the journal behind the commands and reads its header and channel headers
      // (it counts channels from 0); one chapter C of one log is 3 + 1 + 2 octets.
      assert.deepEqual(journalHeaders(second), {
        checkpoint: first.sequence,
        channels: [{ channel: 0, length: 6 }],
      });
      assert.equal(toc(second, 0), 0x40); // chapter C
      from = peer.log.events.length;
      network.send([cc(8, 2)]);
      const third = await packet(from);
      assert.deepEqual(journalHeaders(third), {
        checkpoint: first.sequence,
        channels: [{ channel: 0, length: 6 }, { channel: 1, length: 6 }],
      });
      assert.deepEqual([toc(third, 0), toc(third, 6)], [0x40, 0x80]); // chapters C, then P
      // The peer acknowledges all three: the next packet needs no journal.
      await peer.command({ cmd: "feedback" });
      for (let i = 0; network.participants()[0]!.acknowledged !== third.sequence; i++) {
        assert.ok(i < 3000, "the feedback never arrived");
        await new Promise((resolve) => setTimeout(resolve, 10)); // a poll of state, capped
      }
      from = peer.log.events.length;
      network.send([cc(9, 3)]);
      assert.equal((await packet(from)).journal, null);
    } finally {
      await peer.stop();
      await network.close();
    }
  },
});

Deno.test({
  name: "rtp: 1,000 CCs, each in its own packet, arrive in order with none lost",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const receiver = session("receiver");
    const sender = session("sender");
    try {
      sender.network.invite("127.0.0.1", receiver.network.port);
      await receiver.events.waitFor((e) => e.type === "joined", "the session");
      await sender.events.waitFor((e) => e.type === "joined", "the sender's side");
      for (let batch = 0; batch < 20; batch++) { // 50 packets, then wait for them: paced by progress
        for (let i = 0; i < 50; i++) sender.network.send([cc(batch % 16, i)]);
        let seen = 0;
        await receiver.received.waitFor(() => ++seen === 50, "a batch", batch * 50);
      }
      assert.equal(receiver.received.events.length, 1000);
      assert.deepEqual(receiver.received.events.slice(50, 53), [cc(1, 0), cc(1, 1), cc(1, 2)]);
      assert.deepEqual(receiver.network.participants()[0]!.lost, 0);
    } finally {
      await sender.network.close();
      await receiver.network.close();
    }
  },
});

Deno.test({
  name: "rtp: many messages in one send go in several packets; a long sysex in segments",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const receiver = session("receiver");
    const warnings: string[] = [];
    const events = new EventLog<RtpMidiEvent>();
    const sender = new RtpMidiNetwork({
      port: 0,
      hosts: ["127.0.0.1"],
      log: (_level, message) => warnings.push(message),
      onEvent: (e) => events.push(e),
    });
    sender.start();
    try {
      sender.invite("127.0.0.1", receiver.network.port);
      await events.waitFor((e) => e.type === "joined", "the session");
      const many: MidiMessage[] = Array.from({ length: 600 }, (_, i) => cc(i % 120, i % 128));
      const sysex: MidiMessage = { type: "sysex", data: Uint8Array.from({ length: 600 }, () => 1) };
      const long: MidiMessage = {
        type: "sysex",
        data: Uint8Array.from({ length: 5000 }, (_, i) => i % 128),
      };
      const tooLong: MidiMessage = { type: "sysex", data: new Uint8Array(70_000) };
      sender.send([...many, long, tooLong, sysex, cc(1, 1)]);
      let seen = 0;
      await receiver.received.waitFor(() => ++seen === 603, "every message");
      assert.deepEqual(receiver.received.events, [...many, long, sysex, cc(1, 1)]);
      assert.ok(receiver.network.participants()[0]!.received >= 2 + 6); // 5000 octets: 6 segments
      assert.deepEqual(warnings, ["MIDI session: 1 system exclusive too long to send"]);
    } finally {
      await sender.close();
      await receiver.network.close();
    }
  },
});

/** What a stream of messages leaves: each channel's program, controller values, sounding notes. */
function stateOf(messages: readonly MidiMessage[]): string[] {
  const state = new Map<string, number>();
  for (const m of messages) {
    if (m.type === "programChange") state.set(`${m.channel} program`, m.program);
    else if (m.type === "controlChange") state.set(`${m.channel} cc ${m.controller}`, m.value);
    else if (m.type === "noteOn") state.set(`${m.channel} note ${m.note}`, 1);
    else if (m.type === "noteOff") state.delete(`${m.channel} note ${m.note}`);
  }
  return [...state].map(([key, value]) => `${key}=${value}`).sort();
}

Deno.test({
  name: "rtp: with a fifth of the packets lost at random, the receiver ends in the sender's state",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const receiver = session("receiver");
    const sender = session("sender");
    const relay = new Relay(receiver.network.port);
    let seed = 44;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    try {
      sender.network.invite("127.0.0.1", relay.port);
      await sender.events.waitFor((e) => e.type === "joined", "the session through the relay");
      await receiver.events.waitFor((e) => e.type === "joined", "the receiver's side");
      // Every packet but the markers (CC 127 on channel 1: its command at octets 13-14) may go.
      relay.dropWhen = (packet) => !(packet[13] === 0xb0 && packet[14] === 127) && random(5) === 0;
      const sent: MidiMessage[] = [];
      for (let i = 0; i < 400; i++) {
        const channel = 1 + random(3);
        const kind = random(4);
        const message: MidiMessage = kind === 0
          ? { type: "programChange", channel, program: random(128) }
          : kind === 1
          ? { type: "controlChange", channel, controller: random(8), value: random(128) }
          : kind === 2
          ? { type: "noteOn", channel, note: 60 + random(8), velocity: 1 + random(127) }
          : { type: "noteOff", channel, note: 60 + random(8), velocity: 0 };
        sent.push(message);
        sender.network.send([message]);
        if (i % 50 === 49) { // paced by progress: what was not dropped has arrived
          const marker = cc(127, i % 128);
          sender.network.send([marker]);
          sent.push(marker);
          await receiver.received.waitFor((m) => JSON.stringify(m) === JSON.stringify(marker), "");
        }
      }
      assert.ok(relay.dropped.length > 40, `${relay.dropped.length} dropped`);
      assert.deepEqual(stateOf(receiver.received.events), stateOf(sent));
    } finally {
      relay.close();
      await sender.network.close();
      await receiver.network.close();
    }
  },
});

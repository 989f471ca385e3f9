/**
 * Who gets into a session, against a hand-driven peer on loopback with a
 * virtual clock: a peer opens only once it echoed our clock sync's random
 * timestamp (a forged invitation cannot replace a live peer), refusals are
 * small and budgeted, a data-port invitation nobody made gets no answer,
 * hosts given by name join, a NO is tried again, and a peer-opened session
 * outlives Apple's 60 s sync contract.
 */
import assert from "node:assert/strict";
import type { ClockPacket, InvitationPacket } from "../../../../server/midi/rtp/control.ts";
import type { MidiMessage } from "../../../../server/midi/messages.ts";
import { type RtpMidiEvent, RtpMidiNetwork } from "../../../../server/midi/rtp/mod.ts";
import { encodePacket } from "../../../../server/midi/rtp/packet.ts";
import { ANSWERS_PER_SECOND } from "../../../../server/midi/rtp/session_control.ts";
import { EventLog } from "./_events.ts";
import { RawPeer, type RawRead } from "./_raw.ts";

/** A session on loopback with a virtual clock, its events and a raw peer. */
function setUp(options: ConstructorParameters<typeof RtpMidiNetwork>[0] = {}) {
  const clock = { now: 1_000_000 };
  const events = new EventLog<RtpMidiEvent>();
  const network = new RtpMidiNetwork({
    port: 0,
    hosts: ["127.0.0.1"],
    name: "Cueport with a long session name",
    tickMs: 0,
    now: () => clock.now,
    onEvent: (e) => events.push(e),
    ...options,
  });
  network.start();
  const raw = new RawPeer();
  const close = async () => {
    await raw.close();
    await network.close();
  };
  return { clock, events, network, raw, close };
}

const invitation = (command: InvitationPacket["command"], token: number, ssrc: number) => ({
  command,
  token,
  ssrc,
  name: "raw",
});
const isCommand = (kind: string, command: string) => (r: RawRead) =>
  r.kind === kind && r.packet.command === command;

/** The raw peer invites the network as `ssrc` (both ports); resolves with our proof `CK`. */
async function inviteBothPorts(raw: RawPeer, port: number, ssrc: number, token: number) {
  const mark = raw.log.events.length;
  raw.send("control", invitation("IN", token, ssrc), port);
  await raw.next(isCommand("control", "OK"), "the control OK", mark);
  raw.send("data", invitation("IN", token, ssrc), port + 1);
  await raw.next(isCommand("data", "OK"), "the data OK", mark);
  const ck = await raw.next(isCommand("data", "CK"), "the clock sync to echo", mark);
  return ck.packet as ClockPacket;
}

/** Answers `ck` (count 0) as a peer does: count 1, its first timestamp echoed. */
function echo(raw: RawPeer, port: number, ssrc: number, ck: ClockPacket, t1 = ck.timestamps[0]) {
  raw.send("data", { command: "CK", ssrc, count: 1, timestamps: [t1, 5n, 0n] }, port + 1);
}

Deno.test({
  name:
    "rtp admission: a peer opens once it echoed our random clock sync; a forged invitation replaces no one",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { events, network, raw, close } = setUp();
    try {
      const ck = await inviteBothPorts(raw, network.port, 0xaaaa, 1);
      assert.equal(ck.count, 0);
      assert.deepEqual(network.participants(), []); // not open before the echo
      echo(raw, network.port, 0xaaaa, ck);
      await events.waitFor((e) => e.type === "joined", "the peer joining");
      assert.deepEqual(network.participants().map((p) => p.ssrc), [0xaaaa]);
      // Forged from the same address: a new SSRC, both ports, no echo (the forger never sees our CK).
      const mark = events.events.length;
      const forged = await inviteBothPorts(raw, network.port, 0xbbbb, 2);
      echo(raw, network.port, 0xbbbb, forged, forged.timestamps[0] ^ 1n); // a guess
      // The live one still answers its clock sync: it was never replaced.
      raw.send(
        "data",
        { command: "CK", ssrc: 0xaaaa, count: 0, timestamps: [7n, 0n, 0n] },
        network.port + 1,
      );
      await raw.next(
        (r) => r.packet.command === "CK" && r.packet.count === 1,
        "the live one's sync answered",
      );
      assert.deepEqual(network.participants().map((p) => p.ssrc), [0xaaaa]);
      assert.deepEqual(events.events.slice(mark).map((e) => e.type), []);
      // A real restart echoes: then, and only then, the old run is replaced.
      echo(raw, network.port, 0xbbbb, forged);
      const left = await events.waitFor((e) => e.type === "left", "the old run replaced", mark);
      assert.equal(left.type === "left" && left.reason, "replaced");
      await events.waitFor((e) => e.type === "joined", "the new run joining", mark);
      assert.deepEqual(network.participants().map((p) => p.ssrc), [0xbbbb]);
    } finally {
      await close();
    }
  },
});

Deno.test({
  name:
    "rtp admission: a NO has no name and answers are budgeted per address; an uninvited data-port IN gets nothing",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { clock, events, network, raw, close } = setUp({ admit: () => false });
    try {
      raw.send("data", invitation("IN", 9, 0x1111), network.port + 1); // nobody invited it
      raw.send("control", invitation("IN", 1, 0x1111), network.port);
      const no = await raw.next(isCommand("control", "NO"), "the NO");
      assert.deepEqual(no.packet, { command: "NO", token: 1, ssrc: network.ssrc, name: "" });
      assert.ok(no.size <= 16 + "raw".length + 1, `a NO of ${no.size} bytes`);
      assert.deepEqual(raw.log.events.filter((r) => r.kind === "data"), []);
      // A flood of refused invitations while the clock stands still: the answers stop at the burst.
      for (let token = 2; token <= 100; token++) {
        raw.send("control", invitation("IN", token, 0x1111), network.port);
      }
      let refused = 0;
      await events.waitFor((e) => e.type === "refused" && ++refused === 100, "all 100 read");
      clock.now += 1000; // the budget refills: the next answer comes, after every earlier one
      raw.send("control", invitation("IN", 1000, 0x1111), network.port);
      await raw.next((r) => r.packet.command === "NO" && r.packet.token === 1000, "the NO after");
      const nos = raw.log.events.filter(isCommand("control", "NO")).length - 1;
      assert.ok(nos < 100 && nos >= ANSWERS_PER_SECOND, `${nos} NOs for 100 invitations`);
    } finally {
      await close();
    }
  },
});

/** The raw peer as a host we invited: answers OK on both ports as `ssrc`. */
async function acceptInvitation(raw: RawPeer, network: RtpMidiNetwork, ssrc: number, from = 0) {
  const control = await raw.next(isCommand("control", "IN"), "our control invitation", from);
  const token = (control.packet as InvitationPacket).token;
  raw.send("control", invitation("OK", token, ssrc), network.port);
  await raw.next(isCommand("data", "IN"), "our data invitation", from);
  raw.send("data", invitation("OK", token, ssrc), network.port + 1);
}

Deno.test({
  name: "rtp admission: a host invited by name (localhost) joins",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { events, network, raw, close } = setUp();
    try {
      network.invite("localhost", raw.port);
      await acceptInvitation(raw, network, 0x3333);
      const join = await events.waitFor((e) => e.type === "joined", "the named host joining");
      assert.equal(join.type === "joined" && join.participant.address, "127.0.0.1");
      assert.equal(join.type === "joined" && join.participant.initiator, "us");
    } finally {
      await close();
    }
  },
});

Deno.test({
  name: "rtp admission: a NO from a host we invite is tried again, from the control port",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { clock, events, network, raw, close } = setUp({
      backoff: { firstMs: 1000, maxMs: 8000 },
    });
    try {
      network.invite("127.0.0.1", raw.port);
      // A NO on the data port: invited again on the control port after a backoff, with a new token.
      const first = await raw.next(isCommand("control", "IN"), "the first invitation");
      const token = (first.packet as InvitationPacket).token;
      raw.send("control", invitation("OK", token, 0x4444), network.port);
      await raw.next(isCommand("data", "IN"), "the data invitation");
      raw.send("data", invitation("NO", token, 0x4444), network.port + 1);
      await events.waitFor((e) => e.type === "declined", "the data port's NO");
      let mark = raw.log.events.length;
      clock.now += 1000;
      network.tick();
      const again = await raw.next(isCommand("control", "IN"), "the control port again", mark);
      const second = (again.packet as InvitationPacket).token;
      assert.notEqual(second, token);
      // A NO on the control port: tried again only after the longest backoff.
      raw.send("control", invitation("NO", second, 0x4444), network.port);
      let declines = 0;
      await events.waitFor((e) => e.type === "declined" && ++declines === 2, "the control NO");
      mark = raw.log.events.length;
      clock.now += 7999;
      network.tick();
      // An answer on the same port after that tick: whatever the tick sent came before it.
      raw.send("control", invitation("IN", 77, 0x9999), network.port);
      await raw.next((r) => r.packet.command === "OK" && r.packet.token === 77, "a marker", mark);
      assert.deepEqual(raw.log.events.slice(mark).filter(isCommand("control", "IN")), []);
      clock.now += 1;
      network.tick();
      await acceptInvitation(raw, network, 0x4444, mark);
      await events.waitFor((e) => e.type === "joined", "the host joining at last");
      const controlIns = raw.log.events.slice(mark).filter(isCommand("control", "IN"));
      assert.equal(controlIns.length, 1); // none before the 8 s passed
    } finally {
      await close();
    }
  },
});

Deno.test({
  name: "rtp admission: a peer-opened session outlives Apple's 60 s between clock syncs",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { clock, events, network, raw, close } = setUp();
    try {
      const ck = await inviteBothPorts(raw, network.port, 0x5555, 1);
      echo(raw, network.port, 0x5555, ck);
      await events.waitFor((e) => e.type === "joined", "the peer joining");
      clock.now += 60_500;
      network.tick();
      assert.deepEqual(network.participants().map((p) => p.ssrc), [0x5555]);
      clock.now += 1_000;
      network.tick();
      const left = await events.waitFor((e) => e.type === "left", "the silent peer dropped");
      assert.equal(left.type === "left" && left.reason, "timeout");
    } finally {
      await close();
    }
  },
});

Deno.test({
  name:
    "rtp admission: MIDI a peer sends before its echo is held, delivered once it opens, never if it does not",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { events, network, raw, close } = setUp();
    const got = new EventLog<MidiMessage>();
    network.onMessages((messages) => messages.forEach((m) => got.push(m)));
    const note = (ssrc: number, sequence: number, n: number) =>
      encodePacket({
        sequence,
        timestamp: 0,
        ssrc,
        messages: [{ type: "noteOn", channel: 1, note: n, velocity: 100 }],
        journal: null,
      });
    try {
      const ck = await inviteBothPorts(raw, network.port, 0x6666, 1);
      raw.sendBytes("data", note(0x6666, 1, 60), network.port);
      raw.sendBytes("data", note(0x6666, 2, 61), network.port);
      // A forger's: it never echoes, so its note is never read.
      await inviteBothPorts(raw, network.port, 0x7777, 2);
      raw.sendBytes("data", note(0x7777, 1, 99), network.port);
      echo(raw, network.port, 0x6666, ck);
      await events.waitFor((e) => e.type === "joined", "the peer joining");
      raw.sendBytes("data", note(0x6666, 3, 62), network.port);
      await got.waitFor((m) => m.type === "noteOn" && m.note === 62, "its note after opening");
      assert.deepEqual(got.events.map((m) => m.type === "noteOn" && m.note), [60, 61, 62]);
    } finally {
      await close();
    }
  },
});

/**
 * What an operator sees of network MIDI (`GET /api/v1/midi`, docs/midi.md,
 * "Status"): each participant's counters (packets received, lost, recovered
 * through the journal, late), its clock-sync latency, when it joined and who
 * invited whom; and the datagrams the session refused as over budget.
 */
import assert from "node:assert/strict";
import { MidiParticipant } from "../../../protocol/midi.ts";
import { MidiStatusView } from "../../../server/core/operations/midi.ts";
import type { MidiMessage } from "../../../server/midi/messages.ts";
import { type RtpMidiEvent, RtpMidiNetwork } from "../../../server/midi/rtp/mod.ts";
import type { ClockPacket } from "../../../server/midi/rtp/control.ts";
import { encodePacket } from "../../../server/midi/rtp/packet.ts";
import { MidiSession } from "../../../server/midi/session.ts";
import { startMidiService } from "../../../tools/testing/midi.ts";
import { until } from "../../../tools/testing/until.ts";
import { EventLog } from "./rtp/_events.ts";
import { RawPeer, type RawRead } from "./rtp/_raw.ts";
import { Relay } from "./rtp/_relay.ts";
import { cc } from "../../../tools/testing/midi.ts";

const PLAYSTATE = "/api/v1/projects/show/playstate";

Deno.test({
  name:
    "GET /api/v1/midi: a participant's packets lost on the way and recovered through the journal are counted, with who invited whom and when it joined",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const svc = await startMidiService();
    const relay = new Relay(svc.service.ports.midi!);
    const events = new EventLog<RtpMidiEvent>();
    const desk = new RtpMidiNetwork({
      port: 0,
      hosts: ["127.0.0.1"],
      name: "Desk",
      onEvent: (e) => events.push(e),
    });
    desk.start();
    const controls = async () => (await svc.get(PLAYSTATE)).body.controls;
    try {
      desk.invite("127.0.0.1", relay.port);
      await events.waitFor((e) => e.type === "joined", "the desk's session through the relay");
      desk.send([cc(1, 10)]);
      await until("A at 10", async () => (await controls()).A === 10 / 127);
      relay.dropNext = 2;
      desk.send([cc(1, 90)]); // lost
      desk.send([{ type: "programChange", channel: 1, program: 19 }]); // lost
      desk.send([cc(2, 127)]);
      await until("B at 1", async () => (await controls()).B === 1);
      await until("A recovered", async () => (await controls()).A === 90 / 127);

      const status = (await svc.get("/api/v1/midi")).body;
      MidiStatusView.parse(status);
      assert.equal(status.participants.length, 1);
      const [p] = status.participants;
      assert.deepEqual(
        { kind: p.kind, address: p.address, name: p.name, ssrc: p.ssrc, initiator: p.initiator },
        { kind: "rtp", address: "127.0.0.1", name: "Desk", ssrc: desk.ssrc, initiator: "peer" },
      );
      assert.deepEqual(
        { received: p.received, lost: p.lost, recovered: p.recovered, late: p.late },
        { received: 2, lost: 2, recovered: 2, late: 0 },
      );
      assert.ok(!Number.isNaN(Date.parse(p.joinedAt)), `joinedAt ${p.joinedAt}`);
      assert.ok(p.latencyMs === null || p.latencyMs >= 0);
      assert.equal(status.overBudget, 0);
    } finally {
      await desk.close();
      relay.close();
      await svc.stop();
    }
  },
});

Deno.test({
  name: "MidiSession: datagrams over a sender's budget are counted as overBudget",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const session = new MidiSession({
      port: 0,
      hosts: ["127.0.0.1"],
      name: "Cueport",
      admit: () => true,
      invite: [],
      rtp: {
        tickMs: 0,
        now: () => 0, // no time passes: the budget never refills
        budget: { datagramsPerSecond: 2, burstSeconds: 1, exemptsLocal: false },
      },
    });
    const raw = new RawPeer();
    try {
      assert.equal(session.overBudget, 0);
      for (let i = 0; i < 10; i++) {
        raw.send("control", { command: "RS", ssrc: 1, sequence: i }, session.port);
      }
      await until("8 over budget", () => session.overBudget === 8);
    } finally {
      await raw.close();
      await session.close();
    }
  },
});

Deno.test({
  name:
    "MidiSession: a packet that comes after a later one, or twice, is counted late; the gap it left, lost",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const session = new MidiSession({
      port: 0,
      hosts: ["127.0.0.1"],
      name: "Cueport",
      admit: () => true,
      invite: [],
      rtp: { tickMs: 0 },
    });
    const got = new EventLog<MidiMessage>();
    session.onMessages((messages) => messages.forEach((m) => got.push(m)));
    const raw = new RawPeer();
    const ssrc = 0x4242;
    const note = (sequence: number) =>
      encodePacket({
        sequence,
        timestamp: 0,
        ssrc,
        messages: [{ type: "noteOn", channel: 1, note: 60 + sequence, velocity: 100 }],
        journal: null,
      });
    const is = (kind: string, command: string) => (r: RawRead) =>
      r.kind === kind && r.packet.command === command;
    try {
      const invitation = { command: "IN" as const, token: 7, ssrc, name: "raw" };
      raw.send("control", invitation, session.port);
      await raw.next(is("control", "OK"), "the control OK");
      raw.send("data", invitation, session.port + 1);
      const ck = (await raw.next(is("data", "CK"), "the clock sync to echo")).packet as ClockPacket;
      const timestamps = [ck.timestamps[0], 5n, 0n] as [bigint, bigint, bigint];
      raw.send("data", { command: "CK", ssrc, count: 1, timestamps }, session.port + 1);
      await until("the raw peer in session", () => session.participants().length === 1);
      for (const sequence of [1, 3, 2, 3, 4]) raw.sendBytes("data", note(sequence), session.port);
      await got.waitFor((m) => m.type === "noteOn" && m.note === 64, "the last note");
      const [p] = session.participants();
      assert.deepEqual(
        { received: p!.received, lost: p!.lost, recovered: p!.recovered, late: p!.late },
        { received: 3, lost: 1, recovered: 0, late: 2 },
      );
      assert.equal(p!.initiator, "peer");
    } finally {
      await raw.close();
      await session.close();
    }
  },
});

Deno.test("status: a participant whose session start is unknown shows joinedAt null, not now", () => {
  const p = { kind: "rtp", address: "192.168.1.20", name: "Studio Mac", joinedAt: null };
  assert.equal(MidiParticipant.parse(p).joinedAt, null);
});

/**
 * The session ports' edge: datagrams metered per address, malformed ones
 * dropped without harm, and nothing acted on from outside the session.
 */
import assert from "node:assert/strict";
import type { MidiMessage } from "../../../../server/midi/messages.ts";
import {
  type ClockPacket,
  decodeControl,
  encodeControl,
} from "../../../../server/midi/rtp/control.ts";
import { encodePacket } from "../../../../server/midi/rtp/packet.ts";
import { type RtpMidiEvent, RtpMidiNetwork } from "../../../../server/midi/rtp/mod.ts";
import { RateLimiter } from "../../../../server/auth/rate_limit.ts";
import { EventLog } from "./_events.ts";
import { until } from "../../../../tools/testing/until.ts";

/** A raw UDP socket on loopback and the datagrams it receives. */
function rawSocket() {
  const socket = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
  const received = new EventLog<Uint8Array>();
  void (async () => {
    try {
      for await (const [data] of socket) received.push(data);
    } catch {
      // closed
    }
  })();
  const send = (bytes: Uint8Array<ArrayBuffer>, port: number) =>
    socket.send(bytes, { transport: "udp", hostname: "127.0.0.1", port });
  return { socket, received, send, port: (socket.addr as Deno.NetAddr).port };
}

const invitation = (token: number) =>
  encodeControl({ command: "IN", token, ssrc: 0x1234, name: "raw" });

Deno.test({
  name: "rtp edge: datagrams over an address's budget are dropped unread",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    let admitted = 0;
    const network = new RtpMidiNetwork({
      port: 0,
      hosts: ["127.0.0.1"],
      tickMs: 0,
      now: () => 0, // no time passes: the budget does not refill
      budget: { datagramsPerSecond: 10, burstSeconds: 1, exemptsLocal: false },
      admit: () => {
        admitted++;
        return false;
      },
    });
    network.start();
    const raw = rawSocket();
    try {
      for (let token = 1; token <= 25; token++) await raw.send(invitation(token), network.port);
      await until("read all 25", () => admitted + network.overBudget === 25, 30_000);
      assert.equal(admitted, 10);
      assert.equal(network.overBudget, 15);
      let answers = 0;
      await raw.received.waitFor(() => ++answers === 10, "ten NOs");
    } finally {
      raw.socket.close();
      await network.close();
    }
  },
});

Deno.test({
  name: "rtp edge: the service's shared budget is taken too",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    let admitted = 0;
    const shared = new RateLimiter({
      ratePerSecond: 3,
      burst: 3,
      exemptsLocal: false,
      now: () => 0,
    })
      .meter("datagrams", 3);
    const network = new RtpMidiNetwork({
      port: 0,
      hosts: ["127.0.0.1"],
      tickMs: 0,
      budget: { shared },
      admit: () => {
        admitted++;
        return false;
      },
    });
    network.start();
    const raw = rawSocket();
    try {
      for (let token = 1; token <= 8; token++) await raw.send(invitation(token), network.port);
      await until("read all 8", () => admitted + network.overBudget === 8, 30_000);
      assert.deepEqual([admitted, network.overBudget], [3, 5]);
    } finally {
      raw.socket.close();
      await network.close();
    }
  },
});

Deno.test({
  name: "rtp edge: malformed datagrams and packets from outside the session are dropped",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const events = new EventLog<RtpMidiEvent>();
    const got: MidiMessage[] = [];
    const faults: string[] = [];
    const network = new RtpMidiNetwork({
      port: 0,
      hosts: ["127.0.0.1"],
      tickMs: 0,
      onEvent: (e) => events.push(e),
      log: (_level, message) => faults.push(message),
    });
    network.onMessages((messages) => got.push(...messages));
    network.start();
    const raw = rawSocket();
    const rtp = (ssrc: number, sequence: number) =>
      encodePacket({
        sequence,
        timestamp: 0,
        ssrc,
        messages: [{ type: "noteOn", channel: 1, note: 1, velocity: 1 }],
        journal: Uint8Array.from([0x20, 0, 0, 0xff, 0xff, 0xff]),
      });
    try {
      const garbage = [
        Uint8Array.from([]),
        Uint8Array.from([0xff, 0xff]),
        Uint8Array.from([0xff, 0xff, 0x43, 0x4b, 1]),
        Uint8Array.from([0x80, 0x61, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x8f, 0x90]),
        Uint8Array.from({ length: 2000 }, (_, i) => (i * 37) & 0xff),
      ];
      for (const bytes of garbage) {
        await raw.send(bytes, network.port);
        await raw.send(bytes, network.port + 1);
      }
      // RTP from an SSRC not in session, then from one invited on its control port only.
      await raw.send(rtp(0x1234, 1), network.port + 1);
      await raw.send(invitation(77), network.port);
      await raw.received.waitFor(() => true, "the OK on the control port");
      await raw.send(rtp(0x1234, 2), network.port + 1);
      // Now its data port, and its echo of our clock sync: the session opens, its next packet counts.
      const mark = raw.received.events.length;
      await raw.send(invitation(77), network.port + 1);
      const ck = await raw.received.waitFor(
        (d) => decodeControl(d)?.command === "CK",
        "our CK",
        mark,
      );
      const t1 = (decodeControl(ck) as ClockPacket).timestamps[0];
      const echo = { command: "CK" as const, ssrc: 0x1234, count: 1, timestamps: [t1, 0n, 0n] };
      await raw.send(encodeControl(echo as ClockPacket), network.port + 1);
      await events.waitFor((e) => e.type === "joined", "the raw participant joining");
      await raw.send(rtp(0x1234, 3), network.port + 1);
      await until("the packet in session delivered", () => got.length > 0, 30_000);
      assert.deepEqual(got, [{ type: "noteOn", channel: 1, note: 1, velocity: 1 }]);
      // A system exclusive whose middle segment was lost is dropped, not delivered with a hole.
      const segment = (sequence: number, bytes: number[]) =>
        Uint8Array.from([
          0x80,
          0x61,
          0,
          sequence,
          0,
          0,
          0,
          0,
          0,
          0,
          0x12,
          0x34,
          bytes.length,
          ...bytes,
        ]);
      await raw.send(segment(4, [0xf0, 1, 2, 0xf0]), network.port + 1);
      await raw.send(segment(6, [0xf7, 5, 0xf7]), network.port + 1); // 5 was lost
      await raw.send(segment(7, [0xf0, 9, 0xf7]), network.port + 1);
      await until("the whole one after", () => got.length > 1, 30_000);
      assert.deepEqual(got.slice(1), [{ type: "sysex", data: Uint8Array.from([9]) }]);
      assert.deepEqual(faults, []);
    } finally {
      raw.socket.close();
      await network.close();
    }
  },
});

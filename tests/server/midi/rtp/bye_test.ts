/**
 * `BY` ends a session only with the session's token: npm `rtpmidi` (like
 * Apple's peers) sends back the invitation's token in its `BY`, so its
 * goodbye ends the session, opened from either side; a `BY` forged with
 * the participant's SSRC and address but another token changes nothing.
 */
import assert from "node:assert/strict";
import { type RtpMidiEvent, RtpMidiNetwork } from "../../../../server/midi/rtp/mod.ts";
import { EventLog } from "./_events.ts";
import { MidiPeer, peerIgnore } from "./_peer.ts";
import { RawPeer } from "./_raw.ts";

Deno.test({
  ...peerIgnore(),
  name:
    "rtp: a forged BY (the peer's SSRC, another token) leaves the session; rtpmidi's own BY ends it",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const events = new EventLog<RtpMidiEvent>();
    const network = new RtpMidiNetwork({
      port: 0,
      hosts: ["127.0.0.1"],
      name: "Cueport test",
      onEvent: (e) => events.push(e),
    });
    network.start();
    const peer = await MidiPeer.start("peer bye");
    const raw = new RawPeer();
    try {
      await peer.command({ cmd: "invite", host: "127.0.0.1", port: network.port });
      const join = await events.waitFor((e) => e.type === "joined", "the peer joining");
      const token = 0x1234_5678;
      assert.ok(join.type === "joined");
      raw.send("control", { command: "BY", token, ssrc: peer.ssrc, name: "" }, network.port);
      // An invitation sent after it on the same ports is answered once the BY was read.
      raw.send("control", { command: "IN", token: 99, ssrc: 0x5151, name: "probe" }, network.port);
      await raw.next((r) => r.packet.command === "OK", "the probe's answer");
      assert.equal(events.events.filter((e) => e.type === "left").length, 0, "no one left");
      assert.deepEqual(network.participants().map((p) => p.ssrc).includes(peer.ssrc), true);

      await peer.stop(true); // rtpmidi says BY with its token
      const left = await events.waitFor((e) => e.type === "left", "the peer's goodbye");
      assert.equal(left.type === "left" && left.reason, "bye");
      assert.equal(left.type === "left" && left.participant.ssrc, peer.ssrc);
    } finally {
      await raw.close();
      await peer.stop(false);
      await network.close();
    }
  },
});

Deno.test({
  ...peerIgnore(),
  name: "rtp: rtpmidi invited by us says BY with our token: the session ends",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const events = new EventLog<RtpMidiEvent>();
    const network = new RtpMidiNetwork({
      port: 0,
      hosts: ["127.0.0.1"],
      name: "Cueport test",
      onEvent: (e) => events.push(e),
    });
    network.start();
    const peer = await MidiPeer.start("peer invited");
    try {
      network.invite("127.0.0.1", peer.port);
      await events.waitFor((e) => e.type === "joined", "joining the peer");
      await peer.log.waitFor((e) => e.event === "joined", "the peer's stream");
      await peer.stop(true);
      const left = await events.waitFor((e) => e.type === "left", "the peer's goodbye");
      assert.equal(left.type === "left" && left.reason, "bye");
    } finally {
      await peer.stop(false);
      await network.close();
    }
  },
});

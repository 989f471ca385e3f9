/**
 * The network MIDI session as the service opens it (`server/midi/session.ts`,
 * `server/service.ts`): midiInvite's entries, the session seen as the
 * transport's port (participants in session, the joined hook, the admission
 * asked with the source), and a service whose MIDI port is taken or whose
 * midiInvite is wrong; recovery through the journal into the service, from
 * a Cueport session through a relay that drops packets (`rtpmidi` sends no
 * journal). Against the real peer: `network_test.ts`.
 */
import assert from "node:assert/strict";
import { SETTING_DEFAULTS } from "../../../protocol/settings.ts";
import type { MidiMessage, MidiSource } from "../../../server/midi/messages.ts";
import { type RtpMidiEvent, RtpMidiNetwork } from "../../../server/midi/rtp/mod.ts";
import { inviteTarget, MidiSession } from "../../../server/midi/session.ts";
import { SessionSockets } from "../../../server/midi/rtp/sockets.ts";
import { StartupError } from "../../../server/startup.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import { freeMidiPort, startMidiService } from "../../../tools/testing/midi.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { EventLog } from "./rtp/_events.ts";
import { Relay } from "./rtp/_relay.ts";

const PLAYSTATE = "/api/v1/projects/show/playstate";

Deno.test("midiInvite: host, host:port, [v6]:port and bare v6; a bad port is refused", () => {
  const port = SETTING_DEFAULTS.midiPort;
  assert.deepEqual(inviteTarget("daw.local"), { host: "daw.local", port });
  assert.deepEqual(inviteTarget("10.0.0.5:5008"), { host: "10.0.0.5", port: 5008 });
  assert.deepEqual(inviteTarget("[fe80::1]:5010"), { host: "fe80::1", port: 5010 });
  assert.deepEqual(inviteTarget("[::1]"), { host: "::1", port });
  assert.deepEqual(inviteTarget("fe80::2"), { host: "fe80::2", port });
  assert.throws(() => inviteTarget("daw:70000"), /midiInvite: "daw:70000" has no port/);
});

Deno.test("MidiSession: two sessions on loopback; the admission asked with the source, joins told, participants in session", async () => {
  const asked: MidiSource[] = [];
  const joined = new EventLog<MidiSource>();
  const options = { hosts: ["127.0.0.1"], invite: [], rtp: { tickMs: 20 } };
  const host = new MidiSession({
    ...options,
    port: 0,
    name: "Cueport",
    admit: (source) => (asked.push(source), true),
  });
  host.onJoined((source) => joined.push(source));
  const guest = new MidiSession({
    ...options,
    port: 0,
    name: "Guest",
    admit: () => true,
    invite: [`127.0.0.1:${host.port}`],
  });
  try {
    const source = await joined.waitFor(() => true, "the guest joining");
    assert.deepEqual(source, { kind: "rtp", address: "127.0.0.1", name: "Guest" });
    assert.deepEqual(asked, [{ kind: "rtp", address: "127.0.0.1", name: "Guest" }]);
    const named = host.participants().map(({ kind, address, name }) => ({ kind, address, name }));
    assert.deepEqual(named, [source]);
  } finally {
    await guest.close();
    await host.close();
  }
});

Deno.test("service: a taken MIDI port leaves network MIDI off, the rest runs; a bad midiInvite stops the start", async () => {
  const taken = SessionSockets.open(["127.0.0.1"], freeMidiPort(), () => {});
  try {
    const svc = await startTestService({ midiPort: taken.port });
    try {
      assert.equal(svc.service.ports.midi, null);
      assert.equal(svc.service.midiSession, null);
      const info = (await svc.get("/api/v1/info")).body;
      assert.equal(info.ports.midi, null);
      // The local ports (through the output's browser) remain; the network session does not.
      assert.equal((await svc.get("/api/v1/midi")).body.endpoints, 1);
    } finally {
      await svc.stop();
    }
  } finally {
    taken.close();
  }
  const dataDir = await fixtureDataDir();
  try {
    await assert.rejects(
      () => startTestService({ midiPort: freeMidiPort(), midiInvite: ["daw:99999"] }, { dataDir }),
      (error: Error) => error instanceof StartupError && /midiInvite/.test(error.message),
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test({
  name:
    "service: packets a Cueport desk sends the service and the network loses are recovered from the journal: the fader ends where it was left, the Song selected",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const svc = await startMidiService();
    const relay = new Relay(svc.service.ports.midi!);
    const joined = new EventLog<RtpMidiEvent>();
    const desk = new RtpMidiNetwork({
      port: 0,
      hosts: ["127.0.0.1"],
      name: "Desk",
      onEvent: (e) => joined.push(e),
    });
    desk.start();
    const cc = (controller: number, value: number): MidiMessage => ({
      type: "controlChange",
      channel: 1,
      controller,
      value,
    });
    const controls = async () => (await svc.get(PLAYSTATE)).body.controls;
    try {
      desk.invite("127.0.0.1", relay.port);
      await joined.waitFor((e) => e.type === "joined", "the desk's session through the relay");
      desk.send([cc(1, 10)]);
      await until("A at 10", async () => (await controls()).A === 10 / 127);
      relay.dropNext = 2;
      desk.send([cc(1, 90)]); // lost
      desk.send([{ type: "programChange", channel: 1, program: 19 }]); // lost: pgmId 20, s2
      desk.send([cc(2, 127)]);
      await until("B at 1", async () => (await controls()).B === 1);
      assert.equal(relay.dropped.length, 2);
      await until("A recovered", async () => (await controls()).A === 90 / 127);
      const state = (await svc.get(PLAYSTATE)).body;
      assert.equal(state.activeSongID, "s2", "the lost program change recovered");
      const [participant] = (await svc.get("/api/v1/midi")).body.participants;
      const { kind, address, name } = participant;
      assert.deepEqual({ kind, address, name }, {
        kind: "rtp",
        address: "127.0.0.1",
        name: "Desk",
      });
    } finally {
      await desk.close();
      relay.close();
      await svc.stop();
    }
  },
});

/**
 * Network MIDI end to end: a real service (its player on a virtual clock,
 * the fixture's Project `show`) with its RTP-MIDI session on a free port pair,
 * against npm `rtpmidi` peers (`tools/midi_peer/`): a session Cueport opens
 * (`midiInvite`) and one the peer opens; notes, a Gate's release, a program
 * change, a CC and MTC run the show; feedback reaches the peers; a
 * participant from elsewhere on the LAN (127.0.0.2) is refused, listed,
 * approved, then accepted; stopping says goodbye. Journal recovery is tested between Cueport's own
 * sessions (`rtp/recovery_test.ts`): `rtpmidi` sends no journal.
 */
import assert from "node:assert/strict";
import { DEFAULT_MIDI_MAP, FEEDBACK_SCHEMES } from "../../../protocol/midi.ts";
import { startMidiService } from "../../_helpers/midi.ts";
import type { TestService } from "../../_helpers/service.ts";
import { until } from "../../_helpers/until.ts";
import { MidiPeer, peerIgnore } from "./rtp/_peer.ts";

const PLAYSTATE = "/api/v1/projects/show/playstate";
const HOUR = 3600;
/** The MTC rate code of 25 fps (the hours piece's bits 1-2). */
const RATE_25 = 1;

// deno-lint-ignore no-explicit-any
async function playstate(svc: TestService): Promise<any> {
  return (await svc.get(PLAYSTATE)).body;
}

// deno-lint-ignore no-explicit-any
async function clipPlay(svc: TestService, clipId: string): Promise<any> {
  return (await playstate(svc)).clips.find((c: { clipID: string }) => c.clipID === clipId);
}

/** The eight quarter frames (F1 nn each) of the code at `seconds`, at 25 fps. */
function quarterFrames(seconds: number): number[][] {
  const total = Math.round(seconds * 25);
  const ff = total % 25, ss = Math.floor(total / 25) % 60;
  const mm = Math.floor(total / 1500) % 60, hh = Math.floor(total / 90_000);
  const nibbles = [ff & 15, ff >> 4, ss & 15, ss >> 4, mm & 15, mm >> 4, hh & 15];
  nibbles.push((RATE_25 << 1) | (hh >> 4));
  return nibbles.map((value, piece) => [0xf1, (piece << 4) | value]);
}

/** Sends `bytes` as one message each from `peer`. */
async function send(peer: MidiPeer, ...messages: number[][]): Promise<void> {
  for (const bytes of messages) await peer.command({ cmd: "send", bytes });
}

/** Waits until every stream of `peer` can send (rtpmidi sends nothing before its clock sync). */
async function synced(peer: MidiPeer): Promise<void> {
  const from = peer.log.events.length;
  await peer.command({ cmd: "whenSynced" });
  await peer.log.waitFor((e) => e.event === "synced", "the peer synced", from);
}

Deno.test({
  ...peerIgnore(),
  name: "network MIDI: rtpmidi peers play the show through the service's session",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const daw = await MidiPeer.start("DAW");
    // Feedback to the pad only: the DAW records what it is sent.
    const svc = await startMidiService({
      midiInvite: [`127.0.0.1:${daw.port}`],
      midiFeedback: ["Pad"],
    });
    const pad = await MidiPeer.start("Pad");
    let lan: MidiPeer | null = null;
    let stopped = false;
    try {
      await t.step("Cueport invites the midiInvite host; a peer invites Cueport", async () => {
        const port = svc.service.ports.midi!;
        assert.ok(port > 0 && port % 2 === 0, `${port}`);
        await daw.log.waitFor((e) => e.event === "joined", "the DAW invited by Cueport");
        await pad.command({ cmd: "invite", host: "127.0.0.1", port });
        await pad.log.waitFor((e) => e.event === "joined", "the pad's session");
        await daw.command({ cmd: "sync" }); // invited, rtpmidi syncs only when told
        await synced(daw);
        await synced(pad);
        const status = (await svc.get("/api/v1/midi")).body;
        assert.deepEqual(status.participants.map((p: { name: string }) => p.name).sort(), [
          "DAW",
          "Pad",
        ]);
        const info = (await svc.get("/api/v1/info")).body;
        assert.equal(info.ports.midi, port);
        assert.equal(info.clients.midi, 2);
      });

      await t.step(
        "a note on plays the Clip with its velocity; feedback lights its pad, not the DAW",
        async () => {
          const daw0 = daw.log.events.length, pad0 = pad.log.events.length;
          await send(pad, [0x90, 36, 64]); // note 36: index 0 of Song s1, Clip c1
          await until("c1 plays", async () => (await clipPlay(svc, "c1"))?.state === "playing");
          assert.equal((await clipPlay(svc, "c1")).velocity, 64);
          const lit = [0x90, 36, FEEDBACK_SCHEMES[DEFAULT_MIDI_MAP.feedback]!.playing!];
          const has = (bytes: number[]) => bytes.join().includes(lit.join());
          await pad.log.waitFor(() => has(pad.bytesSince(pad0)), "the pad told c1 plays");
          assert.deepEqual(daw.bytesSince(daw0), [], "the DAW is sent no feedback");
        },
      );

      await t.step("note off releases a Gate Clip", async () => {
        await send(pad, [0x90, 37, 100]); // index 1: c2, a Gate Clip
        await until("c2 held", async () => (await clipPlay(svc, "c2"))?.held === true);
        await send(pad, [0x80, 37, 0]);
        await until("c2 released", async () => (await clipPlay(svc, "c2"))?.held !== true);
      });

      await t.step("a CC moves a Control", async () => {
        await send(daw, [0xb0, 1, 127]); // CC 1: Control A
        await until("A at 1", async () => (await playstate(svc)).controls.A === 1);
      });

      await t.step("MTC quarter frames from the peer make the active Song chase", async () => {
        const edit = await svc.post("/api/v1/edit", {
          edits: [{
            name: "project.set_timecode",
            params: { chase: true, frameRate: 25, offset: "01:00:00:00" },
          }],
        });
        assert.equal(edit.status, 200, JSON.stringify(edit.body));
        // Running code from 01:00:02:00, two frames a step, the player's clock moved with it;
        // the reader takes one time a frame of its (real) clock, so some steps add nothing.
        let code = HOUR + 2;
        let steps = 0;
        // deno-lint-ignore no-explicit-any
        let state: any = null;
        await until("the Song chasing the code", async () => {
          await send(pad, ...quarterFrames(code));
          state = (await svc.get("/api/v1/app-state")).body.timecode;
          const song = (await playstate(svc)).song;
          const near = song && Math.abs(song.position - (code + 2 / 25 - HOUR)) <= 2 / 25;
          if (state.status === "locked" && song?.state === "playing" && near && steps >= 8) {
            return true;
          }
          await svc.advance(80);
          code += 0.08;
          steps++;
          return false;
        }, 60_000);
        assert.equal(state.songID, "s1");
        assert.equal(state.source, "127.0.0.1");
      });

      await t.step("a program change selects the Song by pgmId", async () => {
        await send(daw, [0xc0, 19]); // program 19 (20 as devices show it): pgmId 20, Song s2
        await until("s2", async () => (await playstate(svc)).activeSongID === "s2");
      });

      await t.step("a LAN participant is refused, listed, approved, then accepted", async () => {
        lan = await MidiPeer.start("Stage pad", undefined, "127.0.0.2");
        const port = svc.service.ports.midi!;
        await lan.command({ cmd: "invite", host: "127.0.0.1", port });
        await lan.log.waitFor(
          (e) => e.event === "control" && e.command === "invitation_rejected",
          "the stage pad told NO",
        );
        const pending = (await svc.get("/api/v1/midi")).body.pending;
        assert.deepEqual(pending.map((p: { address: string; name: string }) => p.address), [
          "127.0.0.2",
        ]);
        assert.equal(pending[0].name, "Stage pad");
        const approved = await svc.post(`/api/v1/midi/approvals/${pending[0].requestId}`, {
          approve: true,
        });
        assert.equal(approved.status, 200, JSON.stringify(approved.body));
        const from = lan.log.events.length;
        await lan.command({ cmd: "invite", host: "127.0.0.1", port });
        await lan.log.waitFor((e) => e.event === "joined", "the stage pad accepted", from);
        await synced(lan);
        await send(lan, [0xb0, 2, 127]); // CC 2: Control B, under its approved device
        await until("B at 1", async () => (await playstate(svc)).controls.B === 1);
      });

      await t.step("the service stopping says goodbye to every participant", async () => {
        const from = [daw, pad].map((p) => p.log.events.length);
        stopped = true;
        await svc.stop();
        await daw.log.waitFor((e) => e.event === "left", "the DAW told BY", from[0]);
        await pad.log.waitFor((e) => e.event === "left", "the pad told BY", from[1]);
      });
    } finally {
      await (lan as MidiPeer | null)?.stop(false);
      await pad.stop(false);
      await daw.stop(false);
      if (!stopped) await svc.stop();
    }
  },
});

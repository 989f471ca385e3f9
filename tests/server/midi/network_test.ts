/**
 * Network MIDI end to end: a real service (its player on a virtual clock,
 * the fixture's Project `show`) with its RTP-MIDI session on a free port pair,
 * against npm `rtpmidi` peers (`tools/midi_peer/`): a session Cueport opens
 * (`midiInvite`) and one the peer opens; notes, a Gate's release, a program
 * change, a CC and MTC run the show (a lock, a jump, a locate, a dropout, a
 * stop); feedback reaches the peers; a participant from elsewhere on the LAN
 * (127.0.0.2) is refused, listed, approved, then accepted; stopping says
 * goodbye. Journal recovery is tested between Cueport's own sessions
 * (`rtp/recovery_test.ts`): `rtpmidi` sends no journal.
 */
import assert from "node:assert/strict";
import { DEFAULT_MIDI_MAP, FEEDBACK_SCHEMES } from "../../../protocol/midi.ts";
import { startMidiService } from "../../../tools/testing/midi.ts";
import type { TestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
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

/** The RTP-MIDI packets Cueport received from the participant `name`. */
async function packets(svc: TestService, name: string): Promise<number> {
  const { participants } = (await svc.get("/api/v1/midi")).body;
  return participants.find((p: { name: string }) => p.name === name)?.received ?? 0;
}

/**
 * Sends `messages` from `peer` one packet each, each once Cueport read the one before: the
 * reader took them all when this answers. (`rtpmidi` writes the messages it is given at once
 * in one packet, a quarter frame after another with running status, which MIDI forbids for
 * system common messages and Cueport does not read.)
 */
async function delivered(
  svc: TestService,
  peer: MidiPeer,
  name: string,
  ...messages: number[][]
): Promise<void> {
  for (const bytes of messages) {
    const before = await packets(svc, name);
    await send(peer, bytes);
    await until("the packet read", async () => await packets(svc, name) > before);
  }
}

/** Waits until every stream of `peer` can send (rtpmidi sends nothing before its clock sync). */
async function synced(peer: MidiPeer): Promise<void> {
  const from = peer.log.events.length;
  await peer.command({ cmd: "whenSynced" });
  await peer.log.waitFor((e) => e.event === "synced", "the peer synced", from);
}

/**
 * Sends running code from `from` (seconds of code, 25 fps), two frames a step, the player's clock
 * moved 80 ms after each, until the Song chases it: locked, playing, within two frames of the code
 * (the reader adds the two frames the eight pieces took) for `minSteps` steps. Once locked, every
 * step must read locked and near: a time the reader dropped or a stop it saw in the player's
 * running code would show as freewheeling.
 */
async function chase(
  svc: TestService,
  peer: MidiPeer,
  from: number,
  minSteps = 8,
  // deno-lint-ignore no-explicit-any
): Promise<{ code: number; steps: number; state: any }> {
  let code = from;
  let lockedAt = -1;
  for (let steps = 0;; steps++) {
    await delivered(svc, peer, "Pad", ...quarterFrames(code));
    const state = (await svc.get("/api/v1/app-state")).body.timecode;
    const song = (await playstate(svc)).song;
    const near = Math.abs(song?.position - (code + 2 / 25 - HOUR)) <= 2 / 25;
    const isLocked = state.status === "locked" && song?.state === "playing" && near;
    const what = `step ${steps} from ${from}: ${state.status}, ${song?.state} at ${song?.position}`;
    if (lockedAt >= 0) assert.ok(isLocked, `the lock was lost at ${what}`);
    else if (isLocked) lockedAt = steps;
    if (lockedAt >= 0 && steps - lockedAt >= minSteps) return { code, steps, state };
    assert.ok(steps < 100, `not locked after 100 steps: ${what}`);
    await svc.advance(80);
    code += 0.08;
  }
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
    let lastCode = 0;
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
        const { state } = await chase(svc, pad, HOUR + 2);
        assert.equal(state.songID, "s1");
        assert.equal(state.source, "127.0.0.1");
      });

      await t.step("a jump of the code seeks the Song there", async () => {
        const before = (await playstate(svc)).song.position;
        const { steps } = await chase(svc, pad, HOUR + 10);
        // Played through, the Song would be only steps * 80 ms on.
        const song = (await playstate(svc)).song;
        assert.ok(song.position - before > 5, `${before} -> ${song.position} in ${steps} steps`);
      });

      await t.step(
        "a full-frame locate stands the Song at the code; code running from it plays",
        async () => {
          await send(pad, [0xf0, 0x7f, 0x7f, 0x01, 0x01, (RATE_25 << 5) | 1, 0, 14, 0, 0xf7]);
          await until("paused at 14 s", async () => {
            const state = (await svc.get("/api/v1/app-state")).body.timecode;
            const song = (await playstate(svc)).song;
            return state.status === "waiting" && song?.state === "paused" && song.position === 14;
          });
          lastCode = (await chase(svc, pad, HOUR + 14)).code;
        },
      );

      await t.step(
        "a 1 s dropout freewheels; the code stopped pauses the Song after it",
        async () => {
          const last = lastCode + 2 / 25 - HOUR; // where the last time read put the Song
          await svc.advance(1000); // no code for 1 s: past the dropout, within the 1.5 s freewheel
          // deno-lint-ignore no-explicit-any
          let song: any = null;
          await until("freewheeling, the Song playing on", async () => {
            const state = (await svc.get("/api/v1/app-state")).body.timecode;
            song = (await playstate(svc)).song;
            return state.status === "freewheeling" && song?.state === "playing";
          });
          assert.ok(Math.abs(song.position - (last + 1)) <= 2 / 25, `${song.position}`);
          await svc.advance(1000); // the freewheel ran out
          await until("paused where the code stopped", async () => {
            const state = (await svc.get("/api/v1/app-state")).body.timecode;
            song = (await playstate(svc)).song;
            return state.status === "waiting" && song?.state === "paused";
          });
          assert.ok(Math.abs(song.position - last) <= 2 / 25, `${song.position} vs ${last}`);
        },
      );

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

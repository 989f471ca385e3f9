/**
 * Probe `midi_fuzz`: random and mutated AppleMIDI control packets and
 * RTP-MIDI payloads (`_rtp_midi.ts`) to a service's network MIDI session on
 * a free even port pair, from two participants in session (one on this
 * machine, one from 127.0.0.3 let in by `midiAllow`) and a stranger from
 * 127.0.0.2 that nobody approved. The service runs what is valid (the demo's
 * Clips, Songs, Controls); the probe checks it stays up, answers HTTP and
 * still plays MIDI from a clean participant after, and reports what it sent
 * and what the service received (`GET /api/v1/midi`): a run in which the
 * service received no MIDI message exercised nothing, and misses.
 * @module
 */
import { countReceived, requireFigures } from "./_figures.ts";
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import { probeGet } from "./_exchange.ts";
import { MidiParticipant, type MidiPortKind } from "./_midi_participant.ts";
import type { Rng } from "./_prng.ts";
import {
  badJournal,
  controlPacket,
  handMadeSection,
  mutate,
  randomDatagram,
  type RtpFuzzKind,
  sysexStream,
  validPacket,
} from "./_rtp_midi.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import { SessionSockets } from "../../server/midi/rtp/sockets.ts";

const LIMITS = {
  short: { inputs: 12_000, seconds: 8 },
  full: { inputs: 100_000, seconds: 600 },
};
const BATCH = 200;
/**
 * Datagrams a second at most, all senders together: each address stays under the session's
 * own budget (2,000 a second per address), so what is sent is read, not dropped at the edge.
 */
const PACE = 4000;

/** The `midi_fuzz` probe. */
export const midiFuzz: Probe = {
  name: "midi_fuzz",
  summary: "random and mutated AppleMIDI and RTP-MIDI datagrams, local and remote",
  figures: ["serviceRss", "playerRss", "localServed"],
  run,
};

/** What `GET /api/v1/midi` says, the part the probe reads. */
interface MidiStatus {
  participants: Array<{ address: string; name: string }>;
  pending: unknown[];
  counts: { received: number; refused: number; failed: number; dropped: number };
  lastError: { action: string; code: string } | null;
}

/** The sockets the probe sends from, and what it sent by kind. */
interface Senders {
  members: MidiParticipant[];
  stranger: MidiParticipant;
  sent: Map<RtpFuzzKind, number>;
  /** How often a member found out of session (a fuzzed `BY` or `IN`) joined again. */
  rejoined: number;
}

/** A free even port on loopback whose next one is free too. */
function freePortPair(): number {
  const sockets = SessionSockets.open(["127.0.0.1"], 0, () => {});
  const port = sockets.port;
  sockets.close();
  return port;
}

async function midiStatus(http: number): Promise<MidiStatus | null> {
  try {
    const answer = await fetch(`http://127.0.0.1:${http}/api/v1/midi`, {
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    return answer.ok ? await answer.json() : (await answer.body?.cancel(), null);
  } catch {
    return null;
  }
}

/** The control port of the service's MIDI session (its ready line's `ports.midi`), or null. */
function midiPortOf(service: ServiceRun): number | null {
  return (service.service.ready.ports as { midi?: number | null }).midi ?? null;
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  tally.requiredInputs = context.mode === "full" ? 100_000 : 0;
  const args = () => ["--midi-port", String(freePortPair()), "--midi-allow", "127.0.0.3"];
  requireFigures(tally, ["received"]);
  await withService(tally, { args: args() }, async (service) => {
    let port = midiPortOf(service);
    // Another program may take the free pair between its choice and the bind: a new one.
    for (let tries = 1; port === null && tries < 3; tries++) {
      await service.restart({ args: args() });
      port = midiPortOf(service);
    }
    if (port === null) throw new Error("the service bound no MIDI session (port pairs taken)");
    const senders: Senders = {
      members: [
        await MidiParticipant.open("127.0.0.1", port, "fuzz local"),
        await MidiParticipant.open("127.0.0.3", port, "fuzz allowed"),
      ],
      stranger: await MidiParticipant.open("127.0.0.2", port, "fuzz stranger"),
      sent: new Map(),
      rejoined: 0,
    };
    try {
      await fuzz(context, service, senders, performance.now() + limits.seconds * 1000);
      await report(tally, service, senders);
    } finally {
      for (const p of [...senders.members, senders.stranger]) await p.close();
    }
  });
}

async function fuzz(
  context: ProbeContext,
  service: ServiceRun,
  senders: Senders,
  deadline: number,
) {
  const { tally, rng } = context;
  const limit = LIMITS[context.mode].inputs;
  const joined = await Promise.all(senders.members.map((m) => m.join()));
  if (joined.some((j) => j !== "OK")) throw new Error(`members not let in: ${joined}`);
  if ((await senders.stranger.join()) !== "NO") tally.shortfall("the stranger was not answered NO");
  const started = performance.now();
  while (tally.inputs < limit && performance.now() < deadline) {
    for (let i = 0; i < BATCH; i++) await sendOne(rng, senders, tally);
    const ahead = started + (tally.inputs / PACE) * 1000 - performance.now();
    if (ahead > 0) await new Promise((r) => setTimeout(r, ahead));
    const health = await probeGet(service.ports.http, "/health", { timeoutMs: ANSWER_WITHIN_MS });
    if (health.status === null && !(await service.revive())) {
      tally.hang(
        `GET /health after ${tally.inputs} datagrams: no answer in ${ANSWER_WITHIN_MS} ms`,
      );
    }
    const status = await midiStatus(service.ports.http);
    tally.served(status !== null);
    if (status !== null) await rejoin(senders, status);
  }
}

/** Members the fuzz ended (a `BY` with their SSRC, an `IN` that replaced them) join again. */
async function rejoin(senders: Senders, status: MidiStatus): Promise<void> {
  for (const member of senders.members) {
    const isIn = status.participants.some((p) =>
      p.name === member.name && p.address === member.address
    );
    if (!isIn && (await member.join(1000)) === "OK") senders.rejoined++;
  }
}

/** One input (a sysex stream counts each of its packets), from a member or the stranger. */
async function sendOne(rng: Rng, senders: Senders, tally: Tally): Promise<void> {
  const from = rng.chance(0.8) ? rng.pick(senders.members) : senders.stranger;
  const ssrc = rng.chance(0.9) ? from.ssrc : rng.int(0x100000000);
  // Sometimes a gap in the sequence numbers, so the journal that follows is read.
  const sequence = () => {
    if (rng.chance(0.1)) from.nextSequence();
    return from.nextSequence();
  };
  const r = rng.next();
  const [kind, datagrams, port]: [RtpFuzzKind, Uint8Array[], MidiPortKind] = r < 0.2
    ? ["valid MIDI", [validPacket(rng, ssrc, sequence())], "data"]
    : r < 0.4
    ? ["mutated MIDI", [mutate(rng, validPacket(rng, ssrc, sequence()))], "data"]
    : r < 0.55
    ? ["hand-made section", [handMadeSection(rng, ssrc, sequence())], "data"]
    : r < 0.7
    ? ["journal", [badJournal(rng, ssrc, sequence())], "data"]
    : r < 0.705
    ? [
      "sysex stream",
      sysexStream(rng, ssrc, sequence(), rng.range(2, 80), rng.chance(0.3)),
      "data",
    ]
    : r < 0.88
    ? ["control", [controlPacket(rng, ssrc)], rng.pick(["control", "data"] as const)]
    : ["random", [randomDatagram(rng)], rng.pick(["control", "data"] as const)];
  for (const datagram of datagrams) {
    tally.inputs++;
    await from.sendRaw(port, datagram);
  }
  if (kind === "sysex stream") { for (let i = 1; i < datagrams.length; i++) from.nextSequence(); }
  senders.sent.set(kind, (senders.sent.get(kind) ?? 0) + datagrams.length);
}

/**
 * After the fuzz: a clean participant on this machine moves Control C by a CC, which must
 * play (MIDI still served); then what was sent and what the service received, in the notes.
 */
/** The MIDI messages the clean participant sends after the fuzz (`report`). */
const CLEAN_MESSAGES = 2;

async function report(tally: Tally, service: ServiceRun, senders: Senders): Promise<void> {
  const http = `http://127.0.0.1:${service.ports.http}/api/v1`;
  const clean = await MidiParticipant.open("127.0.0.1", senders.members[0]!.port, "clean");
  let played = false;
  let isCleanSent = false;
  try {
    if ((await clean.join()) === "OK") {
      const value = 1 + (tally.inputs % 126);
      // The coarse half, then the fine one (the fuzz may have made CC 3 a 14-bit pair: its
      // coarse value then waits for the fine one): 7 bits or 14, Control C ends at one value.
      await clean.send([
        { type: "controlChange", channel: 1, controller: 3, value },
        { type: "controlChange", channel: 1, controller: 35, value: 0 },
      ]);
      isCleanSent = true;
      const ends = [value / 127, (value * 128) / 16383];
      const projects = await (await fetch(`${http}/projects`)).json();
      const active = projects.projects.find((p: { active: boolean }) => p.active)?.projectId;
      for (let tries = 0; tries < 100 && !played; tries++) {
        const play = await (await fetch(`${http}/projects/${active}/playstate`)).json();
        played = ends.includes(play.controls?.C);
        if (!played) await new Promise((r) => setTimeout(r, 50));
      }
    }
  } finally {
    await clean.close();
  }
  if (!played) {
    tally.served(false);
    tally.shortfall("a clean participant's CC after the fuzz did not move Control C");
  }
  const status = await midiStatus(service.ports.http);
  const sent = [...senders.sent].map(([kind, n]) => `${n} ${kind}`).join(", ");
  tally.note(`sent: ${sent}; members joined again ${senders.rejoined} time(s)`);
  const c = status?.counts;
  const last = status?.lastError
    ? ` (last: ${status.lastError.action} ${status.lastError.code})`
    : "";
  tally.note(
    `the service received ${c?.received ?? "?"} MIDI message(s), refused ${c?.refused ?? "?"}, ` +
      `${c?.failed ?? "?"} call(s) failed${last}, ${c?.dropped ?? "?"} coalesced; ` +
      `${status?.pending.length ?? "?"} source(s) pending approval`,
  );
  // Its own count of MIDI messages received, less the clean participant's 2 CCs: none is
  // nothing exercised (no count at all, a `received` not measured).
  if (c) countReceived(tally, Math.max(0, c.received - (isCleanSent ? CLEAN_MESSAGES : 0)));
}

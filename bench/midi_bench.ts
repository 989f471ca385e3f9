/**
 * The MIDI part of `deno task bench` (issue 44): the npm `rtpmidi` peer
 * (Node) joins Cueport's network MIDI session through a relay of the bench's
 * that stamps each packet as it hands it to Cueport (`_midi_peer.ts`).
 *
 * 1. A note on's arrival to its effect: note 36 with a velocity of its own
 *    plays the active Song's first Clip; the effect is the WebSocket's
 *    `clip-play-state-changed` to `playing` with that velocity, stamped on the
 *    same clock. The same work over OSC (`/clip/index/0/play`, stamped as it
 *    is sent) runs in the same rounds, back to back: the ratio is paired per
 *    round (`_stats.ts`). Note 127 (panic) stops it between notes.
 * 2. CCs at 1,000 a second for `--seconds` (default 5) over Controls A-Z: the
 *    count the service received (`GET /api/v1/midi` `counts.received`) must
 *    equal the count sent, and each Control end at the last value sent; the
 *    CPU per message of Cueport's service and player beside the same stream
 *    over OSC (`/control/X`), paired per second.
 * @module
 */
import { parseArgs } from "node:util";
import * as osc from "osc-min";
import { readOperatorToken } from "../server/auth/operator.ts";
import { type Arrival, freePortPair, RtpMidiPeer, SessionRelay } from "./_midi_peer.ts";
import { type BenchService, startCueport } from "./_cueport.ts";
import { formatRatio, pairedRatio, summary } from "./_stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "10" },
    notes: { type: "string", default: "30" },
    seconds: { type: "string", default: "5" },
    rate: { type: "string", default: "1000" },
  },
});
const ROUNDS = Number(values.rounds);
const NOTES = Number(values.notes);
const SECONDS = Number(values.seconds);
const RATE = Number(values.rate);
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const here = (path: string) => new URL(path, import.meta.url).pathname;

type Row = { name: string; value: string; target: string };
// deno-lint-ignore no-explicit-any
type Update = any;

/** The bench's WebSocket client: every `clip-play-state-changed`, stamped as it arrives. */
async function watchClips(port: number, token: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1`);
  const seen: Array<{ at: number; state: string; velocity: number | null }> = [];
  let wake = () => {};
  ws.onmessage = (e) => {
    const at = performance.now();
    const m = JSON.parse(e.data);
    if (m.event !== "state-update") return;
    for (const u of m.payload as Update[]) {
      if (u.data?.event !== "clip-play-state-changed") continue;
      const clip = u.data.playstate?.clips?.find((c: Update) => c.clipID === u.data.clipID);
      seen.push({ at, state: u.data.newState, velocity: clip?.velocity ?? null });
      wake();
    }
  };
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  ws.send(JSON.stringify({ type: "auth", id: "a", payload: { token } }));
  /** The first change to `state` after index `from` (10 s at most). */
  const next = async (from: number, state: string) => {
    for (const deadline = performance.now() + 10_000;;) {
      const hit = seen.slice(from).find((s) => s.state === state);
      if (hit) return hit;
      if (performance.now() > deadline) throw new Error(`no Clip ${state} within 10 s`);
      await new Promise<void>((r) => (wake = r, setTimeout(r, 100)));
    }
  };
  return { ws, seen, next };
}

function oscDatagram(address: string, args: osc.OscArgOrArrayInput[] = []): Uint8Array {
  const view = osc.toBuffer({ address, args });
  return new Uint8Array(view.buffer as ArrayBuffer, view.byteOffset, view.byteLength);
}

/** Everything a round needs. */
interface Rig {
  cueport: BenchService;
  peer: RtpMidiPeer;
  arrivals: Arrival[];
  clips: Awaited<ReturnType<typeof watchClips>>;
  udp: Deno.DatagramConn;
  relay: SessionRelay;
  http: string;
}

/** One note on from the peer: its arrival at Cueport to the Clip playing, ms. */
async function noteLatency(rig: Rig, i: number): Promise<number> {
  const velocity = 1 + (i % 126);
  const from = rig.clips.seen.length, arrived = rig.arrivals.length;
  await rig.peer.command({ cmd: "send", bytes: [0x90, 36, velocity] });
  const effect = await rig.clips.next(from, "playing");
  const arrival = rig.arrivals.slice(arrived).find((a) =>
    a.messages.some((m) => m.type === "noteOn" && m.note === 36 && m.velocity === velocity)
  );
  if (!arrival) throw new Error(`note ${i}: the relay saw no note on of velocity ${velocity}`);
  if (effect.velocity !== velocity) throw new Error(`note ${i}: played at ${effect.velocity}`);
  const stopped = rig.clips.seen.length;
  await rig.peer.command({ cmd: "send", bytes: [0x90, 127, 100] }); // panic: every Clip stops
  await rig.clips.next(stopped, "stopped");
  return effect.at - arrival.at;
}

/** The same over OSC: `/clip/index/0/play` from its send to the Clip playing, ms. */
async function oscLatency(rig: Rig): Promise<number> {
  const target = { transport: "udp" as const, hostname: "127.0.0.1", port: rig.cueport.ports.osc };
  const from = rig.clips.seen.length;
  const sent = performance.now();
  await rig.udp.send(oscDatagram("/clip/index/0/play"), target);
  const effect = await rig.clips.next(from, "playing");
  const stopped = rig.clips.seen.length;
  await rig.udp.send(oscDatagram("/clip/all/stop"), target);
  await rig.clips.next(stopped, "stopped");
  return effect.at - sent;
}

/** Part 1: ROUNDS rounds of NOTES notes over MIDI and NOTES plays over OSC, order alternating. */
async function latencyRows(rig: Rig): Promise<Row[]> {
  const midi: number[] = [], oscs: number[] = [];
  const pairs: Array<{ baseline: number; measured: number }> = [];
  for (let i = 0; i < 20; i++) await noteLatency(rig, i); // warm-up, not counted
  for (let round = 0; round < ROUNDS; round++) {
    const m: number[] = [], o: number[] = [];
    const runMidi = async () => {
      for (let i = 0; i < NOTES; i++) m.push(await noteLatency(rig, round * NOTES + i));
    };
    const runOsc = async () => {
      for (let i = 0; i < NOTES; i++) o.push(await oscLatency(rig));
    };
    if (round % 2 === 0) await runMidi().then(runOsc);
    else await runOsc().then(runMidi);
    midi.push(...m);
    oscs.push(...o);
    pairs.push({ baseline: summary(o).p50, measured: summary(m).p50 });
  }
  const fmt = (xs: number[]) => {
    const s = summary(xs);
    return `p50 ${s.p50} ms, p99 ${s.p99} ms`;
  };
  return [
    {
      name: `note on (rtpmidi peer) to the Clip playing on the WebSocket, ${midi.length} notes`,
      value: `${fmt(midi)}; over OSC (/clip/index/0/play), ${oscs.length}: ${fmt(oscs)}; ` +
        `MIDI p50 / OSC p50 per round ${formatRatio(pairedRatio(pairs))}`,
      target: "p99 < 25 ms (the WebSocket's 5 ms coalescing window included)",
    },
  ];
}

/** Sends `count` messages at RATE a second, `message(k)` each: the peer's lines or OSC datagrams. */
async function stream(count: number, send: (from: number, to: number) => Promise<void>) {
  const start = performance.now();
  let sent = 0;
  while (sent < count) {
    const due = Math.min(count, Math.floor(((performance.now() - start) / 1000) * RATE) + 1);
    if (due > sent) await send(sent, due);
    sent = Math.max(sent, due);
    await new Promise((r) => setTimeout(r, 1));
  }
  return (performance.now() - start) / 1000;
}

/** The CC of message `k`: Controls A-Z in turn, values moving. */
const ccOf = (k: number) => ({ cc: 1 + (k % 26), value: (k * 7 + (k >> 5)) % 128 });

/** The value each Control should end at after messages `0..count-1`. */
function lastValues(count: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (let k = Math.max(0, count - 26); k < count; k++) {
    const { cc, value } = ccOf(k);
    out[LETTERS[cc - 1]!] = value;
  }
  return out;
}

/** The MIDI transport's counts: messages received, values coalesced before the player. */
async function counts(rig: Rig): Promise<{ received: number; dropped: number }> {
  return (await (await fetch(`${rig.http}/midi`)).json()).counts;
}

/** CPU (us) of service and player over `run`, or null without /proc. */
async function cpuOver(rig: Rig, run: () => Promise<unknown>): Promise<number | null> {
  const before = rig.cueport.cpu();
  await run();
  await new Promise((r) => setTimeout(r, 300)); // what was queued is applied
  const after = rig.cueport.cpu();
  if (!before || !after) return null;
  return after.service - before.service + after.player - before.player;
}

/** One second of CCs from the peer (messages `first..first+RATE-1`). */
function midiSecond(rig: Rig, first: number): Promise<number> {
  return stream(RATE, (from, to) => {
    const lines = [];
    for (let k = first + from; k < first + to; k++) {
      const { cc, value } = ccOf(k);
      lines.push({ cmd: "send", bytes: [0xb0, cc, value] });
    }
    return rig.peer.command(...lines);
  });
}

/** One second of `/control/X` over OSC, the same values as MIDI's second (floats 0-1). */
function oscSecond(rig: Rig, first: number): Promise<number> {
  const target = { transport: "udp" as const, hostname: "127.0.0.1", port: rig.cueport.ports.osc };
  return stream(RATE, async (from, to) => {
    for (let k = first + from; k < first + to; k++) {
      const { cc, value } = ccOf(k);
      await rig.udp.send(oscDatagram(`/control/${LETTERS[cc - 1]}`, [value / 127]), target);
    }
  });
}

/** Part 2: SECONDS seconds of CCs at RATE, each second paired with one over OSC. */
async function streamRows(rig: Rig): Promise<Row[]> {
  const before = await counts(rig);
  const packetsBefore = rig.arrivals.length;
  const pairs: Array<{ baseline: number; measured: number }> = [];
  let seconds = 0;
  for (let s = 0; s < SECONDS; s++) {
    const midi = await cpuOver(rig, async () => (seconds += await midiSecond(rig, s * RATE)));
    const oscCpu = await cpuOver(rig, () => oscSecond(rig, s * RATE));
    if (midi !== null && oscCpu !== null) pairs.push({ baseline: oscCpu, measured: midi });
  }
  await midiSecond(rig, SECONDS * RATE).then(() => {}); // MIDI last: the Controls end on MIDI's values
  const total = (SECONDS + 1) * RATE;
  const want = lastValues(total);
  let got = 0, coalesced = 0, controls: Record<string, number> = {};
  for (const deadline = performance.now() + 10_000; performance.now() < deadline;) {
    const now = await counts(rig);
    got = now.received - before.received;
    coalesced = now.dropped - before.dropped;
    const active = (await (await fetch(`${rig.http}/projects`)).json()).projects
      .find((p: { active: boolean }) => p.active).projectId;
    controls = (await (await fetch(`${rig.http}/projects/${active}/playstate`)).json()).controls;
    const right = Object.entries(want).every(([l, v]) => controls[l] === v / 127);
    if (got === total && right) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const packets = rig.arrivals.length - packetsBefore;
  const wrong = Object.entries(want).filter(([l, v]) => controls[l] !== v / 127).map(([l]) => l);
  const cpu = pairs.length > 0
    ? `; CPU a message, MIDI / OSC per second ${formatRatio(pairedRatio(pairs))}`
    : "";
  return [{
    name: `CCs from the rtpmidi peer, ${RATE}/s for ${SECONDS + 1} s, Controls A-Z`,
    value:
      `sent ${total} (in ${packets} RTP-MIDI packets; OSC: a datagram each) in ${
        (seconds + 1).toFixed(1)
      } s of MIDI; received ${got} ` +
      `(${total - got} lost), ${coalesced} coalesced per Control before the player; last value ${
        wrong.length === 0 ? "right on all 26 Controls" : `WRONG on ${wrong.join("")}`
      }${cpu}`,
    target: `${RATE}/s, none lost, every Control's last value right`,
  }];
}

async function open(dataDir: string): Promise<Rig> {
  let cueport = await startCueport(dataDir, ["--midi-port", String(freePortPair())]);
  let midiPort = (cueport.ports as { midi?: number | null }).midi;
  if (!midiPort) { // another program took the free pair between its choice and the bind
    await cueport.stop();
    cueport = await startCueport(dataDir, ["--midi-port", String(freePortPair())]);
    midiPort = (cueport.ports as { midi?: number | null }).midi;
  }
  if (!midiPort) throw new Error("Cueport bound no MIDI session (its port pair was taken)");
  const token = await readOperatorToken(dataDir);
  if (token === null) throw new Error(`no operator credential in ${dataDir}`);
  const arrivals: Arrival[] = [];
  const relay = await SessionRelay.open(midiPort, (a) => arrivals.push(a));
  const peer = new RtpMidiPeer(freePortPair(), "bench");
  await peer.waitFor((e) => e.event === "ready", "ready");
  await peer.command({ cmd: "invite", host: "127.0.0.1", port: relay.port });
  await peer.waitFor((e) => e.event === "joined", "session");
  await peer.command({ cmd: "whenSynced" });
  await peer.waitFor((e) => e.event === "synced", "clock sync");
  const clips = await watchClips(cueport.ports.ws, token);
  const udp = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
  const http = `http://127.0.0.1:${cueport.ports.http}/api/v1`;
  return { cueport, peer, arrivals, clips, udp, relay, http };
}

async function close(rig: Rig): Promise<void> {
  rig.clips.ws.close();
  rig.udp.close();
  await rig.peer.stop();
  rig.relay.close();
  await rig.cueport.stop();
}

const dataDir = await Deno.makeTempDir({ prefix: "cueport-midibench-" });
const rows: Row[] = [];
const rig = await open(dataDir);
try {
  rows.push(...await latencyRows(rig));
  rows.push(...await streamRows(rig));
} finally {
  await close(rig);
  await Deno.remove(dataDir, { recursive: true });
}
const load = Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
console.log(`\nCueport MIDI benchmark (loopback; load average ${load})\n`);
console.log("| scenario | measured | target |");
console.log("| --- | --- | --- |");
for (const r of rows) console.log(`| ${r.name} | ${r.value} | ${r.target} |`);
await Deno.mkdir(here("./results"), { recursive: true });
const file = here(`./results/midi-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
await Deno.writeTextFile(
  file,
  JSON.stringify({ at: new Date().toISOString(), rows }, null, 2) + "\n",
);
console.log(`\nwritten to ${file}`);

/**
 * Probe `osc_patterns`: a desk paired from 127.0.0.2 streams `/control/*`
 * (26 Controls a datagram) at 4,600 datagrams a second, the rate that used
 * to queue 26 player calls a datagram (1.65 GB, the player restarted as
 * hung, actions answered 503 for 6 s after). Local actions are timed before,
 * during and after the stream; at the end every Control must hold the last
 * value sent, and the service and player stay small with no player restart. What the
 * service received is what its OSC port read of the stream (`/ping`'s count).
 *
 * What Cueport promises (docs/osc.md, "The last value"): every datagram its port reads is
 * applied in order, so the last value it read is the one the show holds. UDP promises no
 * delivery: under a flood on a busy machine the kernel drops datagrams at the port's full
 * receive buffer before the service reads them (counted here from `/proc/net/udp`), and a
 * desk resends. So the probe fails when the service drops a datagram it read (`/ping`'s
 * `dropped`) or does not hold the last value it read; the last value is sent once the port's
 * count has settled (a starved machine delivers a backlog late), and again, as a desk would,
 * while the network loses it before the service reads it.
 * @module
 */
import { type ServiceRun, withService } from "./_harness.ts";
import { oscMessage } from "./_osc.ts";
import { kernelDrops, receiveBufferBytes } from "./_osc_drops.ts";
import { portCounts, withOscReads } from "./_osc_reads.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import { percentile, type Tally } from "./_tally.ts";
import { closingNotes, pairOsc, sleep, timeLocal, UdpPeer } from "./_udp_peer.ts";

const LIMITS = { short: { seconds: 6 }, full: { seconds: 40 } };
/** Datagrams a second: the attack's rate. */
const PER_SECOND = 4600;
/** How long local actions are timed after the stream (they used to be 503 for 6 s). */
const AFTER_MS = 3000;
const LETTERS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"];
/** The value sent last, and how many times it is sent while the network loses it. */
const LAST_VALUE = 0.125;
const LAST_SENDS = 5;

/** The `osc_patterns` probe. */
export const oscPatterns: Probe = {
  name: "osc_patterns",
  summary: "a paired desk streams /control/* at 4,600 datagrams/s; the player must keep up",
  run,
};

/**
 * Resolves once every datagram `peer` was given to send has left: a `/ping` sent after them
 * (a socket sends in order) with a callback.
 */
function sentOut(peer: UdpPeer, port: number): Promise<void> {
  return new Promise((resolve) => {
    peer.socket.send(oscMessage("/ping", []), port, "127.0.0.1", () => resolve());
  });
}

/** The active Project's Controls, or null when not answered. */
async function controls(run: ServiceRun): Promise<Record<string, number> | null> {
  try {
    const answer = await fetch(`http://127.0.0.1:${run.ports.http}/api/v1/active`, {
      signal: AbortSignal.timeout(5000),
    });
    const body = await answer.json();
    return body?.playstate?.controls ?? null;
  } catch {
    return null;
  }
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const seconds = LIMITS[context.mode].seconds;
  await withService(tally, {}, async (run) => {
    const desk = await UdpPeer.open("127.0.0.2");
    try {
      if ((await pairOsc(run, desk)) === null) {
        tally.shortfall("the desk at 127.0.0.2 could not pair with /connect");
        return;
      }
      // Timed on the local client's own thread: this one floods, and beside stress-ng it
      // gets about as much CPU as the stream takes, so its own clock measured its turn.
      const action = () =>
        run.local.request(run.ports.http, "POST", "/api/v1/action", {
          body: { name: "OUTPUT_LEVEL_IN", params: [1] },
        });
      const quietUntil = performance.now() + 1000;
      const quiet = await timeLocal(tally, action, () => performance.now() > quietUntil);
      const started = performance.now();
      const deadline = started + seconds * 1000;
      let sent = 0;
      /** Sends the desk's socket refused, by error (a starved probe's bursts overflow it). */
      const sendErrors = new Map<string, number>();
      const counter = await UdpPeer.open("127.0.0.1");
      const before = { kernel: kernelDrops(run.ports.osc), port: await portCounts(run, counter) };
      // What the OSC port read of the stream is what the service received of it.
      const during = await withOscReads(tally, run, async () => {
        const stream = (async () => {
          while (performance.now() < deadline) {
            const due = Math.floor(((performance.now() - started) / 1000) * PER_SECOND);
            for (; sent < due; sent++) {
              desk.socket.send(
                oscMessage("/control/*", [{ type: "f", value: (sent % 1000) / 1000 }]),
                run.ports.osc,
                "127.0.0.1",
                (error) => {
                  if (error) {
                    sendErrors.set(error.message, (sendErrors.get(error.message) ?? 0) + 1);
                  }
                },
              );
            }
            await sleep(1);
          }
          // A starved probe's sends leave after its loop: the stream ends when they have left.
          await sentOut(desk, run.ports.osc);
        })();
        const times = await timeLocal(tally, action, () => performance.now() > deadline);
        await stream;
        return times;
      });
      tally.inputs = sent;
      await tellDrops(tally, run, counter, before);
      counter.close();
      for (const [message, n] of sendErrors) {
        tally.note(`${n} of the desk's sends failed in the probe: ${message}`);
      }
      const afterUntil = performance.now() + AFTER_MS;
      const after = await timeLocal(tally, action, () => performance.now() > afterUntil);
      tally.note(
        `${sent} datagrams of /control/* in ${seconds} s (${Math.round(sent / seconds)}/s, ${
          sent * 26
        } Control values); the desk got ${desk.datagrams} answers back ` +
          `(RATE_LIMITED refusals: a pattern costs 26 of its budget)`,
      );
      const p99 = (times: number[]) => percentile(times, 0.99) ?? "-";
      tally.note(
        `local action p99: ${p99(quiet)} ms before, ${p99(during)} ms during, ${
          p99(after)
        } ms in the ${AFTER_MS / 1000} s after the stream`,
      );
      // The last value wins: one more /control/* once the budget has refilled.
      await sleep(1000);
      await lastValueHeld(tally, run, desk);
    } finally {
      desk.close();
    }
  });
  closingNotes(tally);
}

/**
 * Notes the stream's datagrams the kernel dropped before the service read them (a full
 * receive buffer), and those the port read after `/ping` counted the stream (a starved
 * machine may deliver a backlog late: `/ping`s from another socket overtake it); fails when
 * the service dropped any it read.
 */
async function tellDrops(
  tally: Tally,
  run: ServiceRun,
  counter: UdpPeer,
  before: { kernel: number | null; port: { dropped: number } | null },
): Promise<void> {
  const after = await portCounts(run, counter);
  if (!after || !before.port) return tally.shortfall("the OSC port's counters went unanswered");
  const asked = { pings: after.pings };
  const settled = await settledCount(run, counter, asked);
  if (settled !== null && settled > after.datagrams) {
    tally.note(
      `${settled - after.datagrams} datagram(s) of the stream were read after the count ` +
        "(delivered late: not in the service's received figure)",
    );
  }
  const kernel = kernelDrops(run.ports.osc);
  if (kernel === null || before.kernel === null) {
    tally.note("the kernel's drops at the OSC port are not known (no /proc/net/udp)");
  } else {
    tally.note(
      `the kernel dropped ${kernel - before.kernel} datagram(s) at the OSC port's full receive ` +
        `buffer before the service read them (/proc/net/udp; net.core.rmem_default ${receiveBufferBytes()} bytes)`,
    );
  }
  const last = await portCounts(run, counter);
  const dropped = (last ?? after).dropped - before.port.dropped;
  if (dropped > 0) tally.shortfall(`the service dropped ${dropped} datagram(s) it had read`);
}

/**
 * The port's count of datagrams read, less the pings it took to ask, once it stops changing
 * (a backlog handled); null when unanswered or never still. `asked` counts the pings asked
 * through `counter` so far.
 */
async function settledCount(
  run: ServiceRun,
  counter: UdpPeer,
  asked: { pings: number },
): Promise<number | null> {
  const count = async () => {
    const counts = await portCounts(run, counter);
    if (!counts) return null;
    const read = counts.datagrams - asked.pings;
    asked.pings += counts.pings;
    return read;
  };
  let last = await count();
  for (let i = 0; i < 50 && last !== null; i++) {
    await sleep(100);
    const now = await count();
    if (now === last) return now;
    last = now;
  }
  return null;
}

/**
 * Sends the last value until the service has read it (the network may lose it, as it may a
 * desk's: a desk resends), then requires every Control to hold it.
 */
async function lastValueHeld(tally: Tally, run: ServiceRun, desk: UdpPeer): Promise<void> {
  const counter = await UdpPeer.open("127.0.0.1");
  const asked = { pings: 0 };
  try {
    for (let send = 1; send <= LAST_SENDS; send++) {
      const before = await settledCount(run, counter, asked);
      desk.send(oscMessage("/control/*", [{ type: "f", value: LAST_VALUE }]), run.ports.osc);
      const after = await settledCount(run, counter, asked);
      if (before === null || after === null) {
        return tally.shortfall("the OSC port's count of datagrams read went unanswered");
      }
      if (after > before) return await requireHeld(tally, run, send);
      tally.note(`the last /control/* (send ${send}) was lost before the service read it`);
    }
    tally.shortfall(`the last /control/* never reached the service in ${LAST_SENDS} sends`);
  } finally {
    counter.close();
  }
}

/** Requires every Control to hold the last value, which the service has read. */
async function requireHeld(tally: Tally, run: ServiceRun, send: number): Promise<void> {
  let last: Record<string, number> | null = null;
  for (let i = 0; i < 50; i++) {
    last = await controls(run);
    if (last && LETTERS.every((l) => last![l] === LAST_VALUE)) break;
    await sleep(100);
  }
  const wrong = LETTERS.filter((l) => last?.[l] !== LAST_VALUE);
  if (wrong.length > 0) {
    tally.shortfall(
      `the service read the last /control/* and ${wrong.length} Control(s) lack its value`,
    );
  } else tally.note(`every Control holds the last value the service read (send ${send})`);
}

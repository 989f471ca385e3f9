/**
 * Probe `osc_patterns`: a desk paired from 127.0.0.2 streams `/control/*`
 * (26 Controls a datagram) at 4,600 datagrams a second, the rate that used
 * to queue 26 player calls a datagram (1.65 GB, the player restarted as
 * hung, actions answered 503 for 6 s after). Local actions are timed before,
 * during and after the stream; at the end every Control must hold the last
 * value sent, and the service and player stay small with no player restart. What the
 * service received is what its OSC port read of the stream (`/ping`'s count).
 * @module
 */
import { type ServiceRun, withService } from "./_harness.ts";
import { oscMessage } from "./_osc.ts";
import { withOscReads } from "./_osc_reads.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import { percentile } from "./_tally.ts";
import { closingNotes, pairOsc, sleep, timeLocal, UdpPeer } from "./_udp_peer.ts";

const LIMITS = { short: { seconds: 6 }, full: { seconds: 40 } };
/** Datagrams a second: the attack's rate. */
const PER_SECOND = 4600;
/** How long local actions are timed after the stream (they used to be 503 for 6 s). */
const AFTER_MS = 3000;
const LETTERS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"];

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
      desk.send(oscMessage("/control/*", [{ type: "f", value: 0.125 }]), run.ports.osc);
      let last: Record<string, number> | null = null;
      for (let i = 0; i < 50; i++) {
        last = await controls(run);
        if (last && LETTERS.every((l) => last![l] === 0.125)) break;
        await sleep(100);
      }
      const wrong = LETTERS.filter((l) => last?.[l] !== 0.125);
      if (wrong.length > 0) {
        tally.shortfall(`after the stream, ${wrong.length} Control(s) lack the last value sent`);
      } else tally.note("after the stream every Control holds the last value sent");
    } finally {
      desk.close();
    }
  });
  closingNotes(tally);
}

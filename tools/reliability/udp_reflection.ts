/**
 * Probe `udp_reflection`: the OSC port as a reflector. A datagram's source
 * can be forged, so a request "from" a victim's address makes the service
 * send the victim its answer. Here the victims are addresses the service
 * lets in (`--osc-allow 127.0.5.0/24`), and the probe sends from them what a
 * forger would: `/get/active`, `/get/project`, `/ping` and `/subscribe`
 * (then feedback, driven by local Control changes), fast and then slowly;
 * and from addresses it does not let in. It measures the bytes each victim
 * receives per byte "it" sent, and per second: at most the port's byte
 * budget per destination (`oscSendBytesPerSecond`, 32 KiB/s with a 64 KiB
 * burst; docs/osc.md, "Reflection"), and refusals to addresses not let in
 * never more than they were sent. Then 200 other
 * addresses guess `/connect` codes (1,000 wrong), and a real pairing over
 * HTTP, from a fresh address and from one of the guessers, must still work.
 * @module
 */
import { withService } from "./_harness.ts";
import { oscMessage } from "./_osc.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import {
  closingNotes,
  localRequest,
  pairingCode,
  requestFrom,
  sleep,
  timeLocal,
  UdpPeer,
} from "./_udp_peer.ts";

const LIMITS = {
  short: { floodSeconds: 4, slowSeconds: 3, perSecond: 2000 },
  full: { floodSeconds: 30, slowSeconds: 10, perSecond: 4000 },
};
const VICTIMS = 8;
const GUESSERS = 200;
const GUESSES_EACH = 5;
/** The service's byte budget per destination address (the default of oscSendBytesPerSecond). */
const BUDGET = { perSecond: 32 * 1024, burst: 64 * 1024 };
/** Bytes an address not let in may receive per byte it sent. */
const MAX_AMPLIFICATION = 1;

/** Whether each of `peers` received at most the byte budget over `seconds`; notes the worst. */
function withinBudget(peers: UdpPeer[], seconds: number): { worst: number; bound: number } {
  const worst = Math.max(...peers.map((p) => p.received));
  // The burst, the rate, and one datagram in flight at the window's edge.
  return { worst, bound: BUDGET.burst + BUDGET.perSecond * seconds + 65_536 };
}

/** The `udp_reflection` probe. */
export const udpReflection: Probe = {
  name: "udp_reflection",
  summary: "forged-source OSC requests: bytes out per byte in; pairing during /connect guessing",
  run,
};

const REQUESTS = [
  oscMessage("/get/active", []),
  oscMessage("/get/project", []),
  oscMessage("/ping", []),
  oscMessage("/subscribe", []),
];

/** Sends REQUESTS round-robin from `peers` at `perSecond` until `until`. */
async function send(
  peers: UdpPeer[],
  port: number,
  perSecond: number,
  until: number,
): Promise<number> {
  const started = performance.now();
  let n = 0;
  while (performance.now() < until) {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    for (; n < due; n++) peers[n % peers.length]!.send(REQUESTS[n % REQUESTS.length]!, port);
    await sleep(2);
  }
  return n;
}

function ratio(peers: UdpPeer[]): { sent: number; received: number; ratio: number } {
  const sent = peers.reduce((sum, p) => sum + p.sent, 0);
  const received = peers.reduce((sum, p) => sum + p.received, 0);
  return { sent, received, ratio: received / Math.max(1, sent) };
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  await withService(tally, { args: ["--osc-allow", "127.0.5.0/24"] }, async (run) => {
    const osc = run.ports.osc;
    const http = run.ports.http;
    let isDone = false;
    const local = timeLocal(
      tally,
      // Timed off this thread, which floods: the service's answer, not the probe's own turn.
      () => run.local.request(http, "GET", "/api/v1/app-state"),
      () => isDone,
    );
    const peers: UdpPeer[] = [];
    try {
      // Feedback to forged subscribers: local Control changes, 50 a second.
      let changes = 0;
      const driving = (async () => {
        while (!isDone) {
          await localRequest(http, "POST", "/api/v1/action", {
            body: { name: "SET_CONTROL", params: ["A", (changes++ % 100) / 100] },
          });
          await sleep(20);
        }
      })();

      const victims = await Promise.all(
        Array.from({ length: VICTIMS }, (_, i) => UdpPeer.open(`127.0.5.${i + 2}`)),
      );
      peers.push(...victims);
      const floodStarted = performance.now();
      const floodUntil = floodStarted + limits.floodSeconds * 1000;
      tally.inputs += await send(victims, osc, limits.perSecond, floodUntil);
      await sleep(500);
      const floodSeconds = (performance.now() - floodStarted) / 1000;
      const flood = ratio(victims);
      const floodBudget = withinBudget(victims, floodSeconds);
      tally.note(
        `flood of ${limits.perSecond} requests/s from ${VICTIMS} allowed (forgeable) addresses: ` +
          `${flood.sent} bytes in, ${flood.received} bytes out: ${
            flood.ratio.toFixed(2)
          } bytes out per byte in; the most one address got: ${
            Math.round(floodBudget.worst / floodSeconds)
          } bytes/s (budget ${BUDGET.perSecond}/s, burst ${BUDGET.burst})`,
      );
      if (floodBudget.worst > floodBudget.bound) {
        tally.shortfall(
          `an address got ${floodBudget.worst} bytes in ${
            floodSeconds.toFixed(1)
          } s, over its budget (${floodBudget.bound})`,
        );
      }

      // Slowly, from fresh victims: what one address receives is bounded by its byte budget.
      const slowVictims = await Promise.all(
        Array.from({ length: VICTIMS }, (_, i) => UdpPeer.open(`127.0.5.${i + 100}`)),
      );
      peers.push(...slowVictims);
      const slowStarted = performance.now();
      tally.inputs += await send(
        slowVictims,
        osc,
        10 * VICTIMS,
        slowStarted + limits.slowSeconds * 1000,
      );
      await sleep(500);
      const slowSeconds = (performance.now() - slowStarted) / 1000;
      const slow = ratio(slowVictims);
      const slowBudget = withinBudget(slowVictims, slowSeconds);
      tally.note(
        `slowly (10 requests/s per address): ${slow.ratio.toFixed(1)} bytes out per byte in, ` +
          `the most one address got: ${Math.round(slowBudget.worst / slowSeconds)} bytes/s`,
      );
      if (slowBudget.worst > slowBudget.bound) {
        tally.shortfall(`an address got ${slowBudget.worst} bytes slowly, over its budget`);
      }

      // From addresses not let in: refusals, never bigger than the request, one a second.
      const strangers = await Promise.all(
        Array.from({ length: VICTIMS }, (_, i) => UdpPeer.open(`127.0.6.${i + 2}`)),
      );
      peers.push(...strangers);
      tally.inputs += await send(strangers, osc, limits.perSecond, performance.now() + 1000);
      await sleep(300);
      const refused = ratio(strangers);
      tally.note(`from addresses not let in: ${refused.ratio.toFixed(4)} bytes out per byte in`);
      if (refused.ratio > MAX_AMPLIFICATION) {
        tally.shortfall(`refusals amplify ${refused.ratio.toFixed(2)}x (at most 1x)`);
      }

      await pairingUnderGuessing(context, run.ports, peers);
      isDone = true;
      await driving;
    } finally {
      isDone = true;
      await local;
      for (const peer of peers) peer.close();
    }
  });
  closingNotes(tally);
}

/** 1,000 wrong `/connect` codes from 200 addresses; real pairings over HTTP meanwhile. */
async function pairingUnderGuessing(
  context: ProbeContext,
  ports: { http: number; osc: number },
  peers: UdpPeer[],
): Promise<void> {
  const { tally } = context;
  const guessers = await Promise.all(
    Array.from({ length: GUESSERS }, (_, i) => UdpPeer.open(`127.0.7.${i + 2}`)),
  );
  peers.push(...guessers);
  for (let round = 0; round < GUESSES_EACH; round++) {
    for (const guesser of guessers) {
      const otp = String(context.rng.int(1_000_000)).padStart(6, "0");
      guesser.send(
        oscMessage("/connect", [{ type: "s", value: otp }, { type: "s", value: "Guess" }]),
        ports.osc,
      );
      tally.inputs++;
    }
    await sleep(50);
  }
  await sleep(300);
  const paused = guessers.filter((g) => g.recent.some((t) => t.includes("RATE_LIMITED"))).length;
  const run = { ports } as Parameters<typeof pairingCode>[0];
  const outcomes: string[] = [];
  for (const address of ["127.0.0.9", "127.0.7.2"]) {
    const otp = await pairingCode(run);
    const paired = await requestFrom(ports.http, address, "POST", "/api/v1/pair", {
      body: { otp, deviceName: `Tablet ${address}` },
    });
    let works = false;
    if (paired.status === 200) {
      const check = await requestFrom(ports.http, address, "GET", "/api/v1/app-state", {
        headers: { authorization: `Bearer ${paired.body?.token}` },
      });
      works = check.status === 200;
    }
    outcomes.push(`from ${address}: ${paired.status}${works ? ", its token works" : ""}`);
    if (!works) {
      tally.shortfall(`pairing over HTTP from ${address} failed during /connect guessing`);
    }
  }
  const desk = await UdpPeer.open("127.0.0.10");
  peers.push(desk);
  const otp = await pairingCode(run);
  desk.send(
    oscMessage("/connect", [{ type: "s", value: otp }, { type: "s", value: "Desk" }]),
    ports.osc,
  );
  await sleep(300);
  const deskReply = desk.reply("/connect")?.status ??
    (desk.recent.some((t) => t.includes("RATE_LIMITED")) ? "RATE_LIMITED" : "no answer");
  tally.note(
    `${
      GUESSERS * GUESSES_EACH
    } wrong /connect codes from ${GUESSERS} addresses (${paused} of them ` +
      `answered RATE_LIMITED at the end); real pairings over HTTP ${outcomes.join("; ")}; ` +
      `/connect from a fresh desk meanwhile: ${deskReply} (documented: /connect pauses, ` +
      "pairing over HTTP never does)",
  );
}

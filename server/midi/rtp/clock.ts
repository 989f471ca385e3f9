/**
 * AppleMIDI clock synchronization (`CK`): the initiator sends count 0 with
 * its time, the other side answers count 1 with its own, the initiator ends
 * with count 2; each side learns the round trip. Times are 64-bit counts of
 * 100 us (the session's 10 kHz clock).
 * @module
 */
import type { ClockPacket } from "./control.ts";

/** The session clock's ticks at `ms` milliseconds. */
export function ticksAt(ms: number): bigint {
  return BigInt(Math.max(0, Math.floor(ms * 10)));
}

/** What to do with a `CK` packet received at `nowMs`. */
export interface ClockStep {
  /** The packet to answer with, if any. */
  reply: ClockPacket | null;
  /** Half the round trip, when this packet completes one (ms). */
  latencyMs: number | null;
}

/** The answer to `packet` (our SSRC `ssrc`) and what it tells of the latency. */
export function clockStep(packet: ClockPacket, ssrc: number, nowMs: number): ClockStep {
  const now = ticksAt(nowMs);
  const [t1, t2, t3] = packet.timestamps;
  if (packet.count === 0) {
    return { reply: { command: "CK", ssrc, count: 1, timestamps: [t1, now, 0n] }, latencyMs: null };
  }
  if (packet.count === 1) {
    const latencyMs = Number(now - t1) / 20;
    return {
      reply: { command: "CK", ssrc, count: 2, timestamps: [t1, t2, now] },
      latencyMs: latencyMs >= 0 ? latencyMs : null,
    };
  }
  if (packet.count === 2) {
    // The other side's round trip, on its clock.
    const latencyMs = Number(t3 - t1) / 20;
    return { reply: null, latencyMs: latencyMs >= 0 && latencyMs < 60_000 ? latencyMs : null };
  }
  return { reply: null, latencyMs: null };
}

/** The first packet of a sync we start at `nowMs`. */
export function clockStart(ssrc: number, nowMs: number): ClockPacket {
  return { command: "CK", ssrc, count: 0, timestamps: [ticksAt(nowMs), 0n, 0n] };
}

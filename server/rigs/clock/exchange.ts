/**
 * The clock exchange between rigs over UDP, on a port of its own: every rig answers the
 * others' requests with its show time (T2, T3), and measures a peer by a burst of requests,
 * keeping the sample with the least delay. Bounded: datagrams of any size but the packet's, and
 * from any address but the group's members, are dropped unread; each member gets at most
 * `ratePerSecond` answers (a burst of `burst`); a rig waits for at most `maxOutstanding` answers.
 * @module
 */
import { PeerBudget } from "./_budget.ts";
import type { LocalClock } from "./local_clock.ts";
import { decodePacket, encodePacket, PACKET_BYTES } from "./packet.ts";
import { bestOfBurst, type ClockSample, sampleOf } from "./sample.ts";

/** Where a peer's exchange listens. */
export interface ClockPeer {
  readonly hostname: string;
  readonly port: number;
}

/** Options of `ClockExchange.open`. */
export interface ClockExchangeOptions {
  /** The port (0: any free one; the lead's setting names it). */
  readonly port: number;
  /** The address to bind (default `0.0.0.0`). */
  readonly hostname?: string;
  /** Whether a datagram's source address is one of the group's members. */
  readonly isMember: (address: string) => boolean;
  /** This rig's clock: T1 and T4 of its own requests, and the answer budget's time. */
  readonly local: LocalClock;
  /** The show time put in answers (T2, T3), and its error, ms (default: `local`, error 0). */
  readonly answerClock?: { now(): number; readonly error: number };
  /** Answers per member per second (20) and at once (16). */
  readonly ratePerSecond?: number;
  readonly burst?: number;
  /** Requests of ours waiting for an answer, at most (64). */
  readonly maxOutstanding?: number;
}

/** What the exchange dropped, by reason, and what it answered. */
export interface ExchangeCounts {
  answered: number;
  notMember: number;
  malformed: number;
  rateLimited: number;
  unexpected: number;
}

/** Options of one measurement. */
export interface BurstOptions {
  /** Requests in the burst (8). */
  readonly count?: number;
  /** Between two requests, ms (4). */
  readonly spacingMs?: number;
  /** How long the last request's answer is waited for, ms (250). */
  readonly waitMs?: number;
}

interface Outstanding {
  readonly peer: string;
  readonly t1: number;
  /** Ends the wait: with the answer's sample, or null (closed). */
  readonly done: (sample: ClockSample | null) => void;
}

/** One rig's end of the clock exchange. */
export class ClockExchange {
  #conn: Deno.DatagramConn;
  #options: ClockExchangeOptions;
  #budget: PeerBudget;
  #outstanding = new Map<number, Outstanding>();
  #loop: Promise<void>;
  #isClosed = false;
  /** The spacing waits of bursts in progress, ended by `close`. */
  #sleeps = new Set<() => void>();
  /** What was answered and dropped. */
  readonly counts: ExchangeCounts = {
    answered: 0,
    notMember: 0,
    malformed: 0,
    rateLimited: 0,
    unexpected: 0,
  };

  private constructor(conn: Deno.DatagramConn, options: ClockExchangeOptions) {
    this.#conn = conn;
    this.#options = options;
    this.#budget = new PeerBudget({
      rate: options.ratePerSecond ?? 20,
      burst: options.burst ?? 16,
      maxPeers: 64,
    });
    this.#loop = this.#receive();
  }

  /** Binds the port and starts answering. */
  static open(options: ClockExchangeOptions): ClockExchange {
    const conn = Deno.listenDatagram({
      transport: "udp",
      hostname: options.hostname ?? "0.0.0.0",
      port: options.port,
    });
    return new ClockExchange(conn, options);
  }

  /** The bound address. */
  get addr(): Deno.NetAddr {
    return this.#conn.addr as Deno.NetAddr;
  }

  /**
   * Measures `peer`'s show time against this rig's clock: a burst of requests, the answered
   * sample with the least delay, or null when none was answered.
   */
  async measure(peer: ClockPeer, options: BurstOptions = {}): Promise<ClockSample | null> {
    const count = options.count ?? 8;
    const samples: ClockSample[] = [];
    const waits: Promise<void>[] = [];
    for (let i = 0; i < count && !this.#isClosed; i++) {
      if (i > 0) await this.#sleep(options.spacingMs ?? 4);
      if (this.#isClosed) break;
      waits.push(this.#request(peer, options.waitMs ?? 250, (s) => samples.push(s)));
    }
    await Promise.all(waits);
    return bestOfBurst(samples);
  }

  /** Stops answering, ends the waits of `measure` (no sample), and closes the port. */
  async close(): Promise<void> {
    this.#isClosed = true;
    for (const waiting of this.#outstanding.values()) waiting.done(null);
    for (const wake of this.#sleeps) wake();
    try {
      this.#conn.close();
    } catch {
      // closed already
    }
    await this.#loop;
  }

  /** Waits `ms`, or until `close`. */
  #sleep(ms: number): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    const timer = setTimeout(resolve, ms);
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    this.#sleeps.add(wake);
    return promise.finally(() => this.#sleeps.delete(wake));
  }

  /** Sends one request; resolves when answered (`onSample`) or after `waitMs`. */
  async #request(peer: ClockPeer, waitMs: number, onSample: (s: ClockSample) => void) {
    if (this.#outstanding.size >= (this.#options.maxOutstanding ?? 64)) return;
    const id = newId(this.#outstanding);
    const answered = Promise.withResolvers<void>();
    const t1 = this.#options.local.now();
    this.#outstanding.set(id, {
      peer: peer.hostname,
      t1,
      done: (sample) => {
        if (sample !== null) onSample(sample);
        answered.resolve();
      },
    });
    const timer = setTimeout(answered.resolve, waitMs);
    try {
      const addr = { transport: "udp" as const, hostname: peer.hostname, port: peer.port };
      await this.#conn.send(encodePacket({ kind: "request", id, t1 }), addr);
      await answered.promise;
    } catch {
      // unreachable or closed: no sample
    } finally {
      clearTimeout(timer);
      this.#outstanding.delete(id);
    }
  }

  async #receive(): Promise<void> {
    // One byte more than a packet: a longer datagram shows as longer, and is dropped.
    const buffer = new Uint8Array(PACKET_BYTES + 1);
    while (true) {
      let received: [Uint8Array, Deno.Addr];
      try {
        received = await this.#conn.receive(buffer);
      } catch {
        return; // closed
      }
      const now = this.#options.local.now();
      const answerNow = this.#options.answerClock?.now() ?? now;
      this.#datagram(received[0], received[1] as Deno.NetAddr, now, answerNow);
    }
  }

  #datagram(data: Uint8Array, from: Deno.NetAddr, now: number, answerNow: number): void {
    if (!this.#options.isMember(from.hostname)) {
      this.counts.notMember++;
      return;
    }
    const packet = decodePacket(data);
    if (packet === null) {
      this.counts.malformed++;
    } else if (packet.kind === "request") {
      this.#answer(packet.id, packet.t1, answerNow, from, now);
    } else {
      const waiting = this.#outstanding.get(packet.id);
      // The origin check of NTP: only the answer to a request of ours, from where it went.
      if (waiting === undefined || waiting.t1 !== packet.t1 || waiting.peer !== from.hostname) {
        this.counts.unexpected++;
        return;
      }
      this.#outstanding.delete(packet.id);
      waiting.done(sampleOf([packet.t1, packet.t2, packet.t3, now], packet.error));
    }
  }

  #answer(id: number, t1: number, t2: number, to: Deno.NetAddr, now: number): void {
    if (!this.#budget.take(to.hostname, now)) {
      this.counts.rateLimited++;
      return;
    }
    this.counts.answered++;
    const clock = this.#options.answerClock;
    const t3 = clock?.now() ?? this.#options.local.now();
    const error = clock?.error ?? 0;
    const bytes = encodePacket({ kind: "answer", id, t1, t2, t3, error: Math.min(error, 3e38) });
    this.#conn.send(bytes, to).catch(() => {});
  }
}

/**
 * A random id no request waits with: with T1 echoed too, an answer forged from a member's address
 * by someone who cannot see the requests must guess both (NTP's origin check).
 */
function newId(outstanding: ReadonlyMap<number, unknown>): number {
  const id = crypto.getRandomValues(new Uint32Array(1))[0]!;
  return outstanding.has(id) ? newId(outstanding) : id;
}

/**
 * One-time pairing codes: 6 digits from a cryptographic source, valid 5
 * minutes, single use. Guessing is made infeasible by limits: 5 failures per
 * address within a minute lock that address out (30 s, doubling to 15 min),
 * and 50 failures a minute from anywhere pause pairing for a minute. The
 * limits are kept apart by channel: guesses sent as OSC datagrams (`osc`),
 * whose source address anyone on the network can forge, lock out and pause
 * only OSC pairing; pairing over a TCP connection (HTTP, WebSocket), whose
 * address is real, is never stopped by them.
 * @module
 */
import { CueportError } from "../core/errors.ts";

/** Options of the code store; `now` is injectable so tests need no sleeping. */
export interface PairingOptions {
  now?: () => number;
  ttlMs?: number;
  log?: (message: string) => void;
}

/** Limits against guessing (documented in docs/security.md). */
export const PAIRING_LIMITS = {
  perAddressFailures: 5,
  windowMs: 60_000,
  firstLockoutMs: 30_000,
  maxLockoutMs: 15 * 60_000,
  globalFailures: 50,
  globalPauseMs: 60_000,
} as const;

/** How a code came: over a TCP connection, or in an OSC datagram (a forgeable source). */
export type PairingChannel = "tcp" | "osc";

/** Log lines a minute about pairing over OSC. */
const OSC_LINES_PER_MINUTE = 20;
/** Most addresses whose failures are remembered; the oldest quiet ones go first. */
const MAX_RECORDS = 10_000;

interface AddressRecord {
  failures: number[];
  lockedUntil: number;
  lockoutMs: number;
}

/** Issues and consumes one-time codes. */
export class PairingCodes {
  #codes = new Map<string, number>(); // code -> expiry
  /** Failures by channel and address (`osc|10.0.0.9`). */
  #addresses = new Map<string, AddressRecord>();
  #globalFailures: Record<PairingChannel, number[]> = { tcp: [], osc: [] };
  #pausedUntil: Record<PairingChannel, number> = { tcp: 0, osc: 0 };
  /** Log lines about OSC pairing this minute (`#note`). */
  #oscLines = { since: -Infinity, count: 0, skipped: 0 };
  #now: () => number;
  #ttlMs: number;
  #log: (message: string) => void;
  /** Told of every new code, so the application can show it on screen. */
  onissue: (otp: string, expiresAt: number) => void = () => {};

  /** Builds an empty store. */
  constructor(options: PairingOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#log = options.log ?? (() => {});
  }

  /** A new code and when it expires (ms since the epoch on this store's clock). */
  issue(): { otp: string; expiresAt: number } {
    const now = this.#now();
    for (const [code, expiry] of this.#codes) if (expiry <= now) this.#codes.delete(code);
    let otp: string;
    do {
      otp = String(crypto.getRandomValues(new Uint32Array(1))[0]! % 1_000_000).padStart(6, "0");
    } while (this.#codes.has(otp));
    const expiresAt = now + this.#ttlMs;
    this.#codes.set(otp, expiresAt);
    this.onissue(otp, expiresAt);
    return { otp, expiresAt };
  }

  /**
   * Uses a code up; `channel` keeps the limits of guesses over OSC apart (see the module).
   * @throws {CueportError} RATE_LIMITED while locked out; AUTHENTICATION_FAILED for a wrong, used or expired code
   */
  consume(otp: string, address: string, channel: PairingChannel = "tcp"): void {
    const now = this.#now();
    const key = `${channel}|${address}`;
    const record = this.#addresses.get(key) ?? { failures: [], lockedUntil: 0, lockoutMs: 0 };
    if (!this.#addresses.has(key)) this.#remember(key, record, now);
    const pausedUntil = this.#pausedUntil[channel];
    if (now < pausedUntil || now < record.lockedUntil) {
      const until = Math.max(pausedUntil, record.lockedUntil);
      this.#note(
        channel,
        now,
        `Pairing refused for ${address}: locked out for ${Math.ceil((until - now) / 1000)} s`,
      );
      throw new CueportError("RATE_LIMITED", "Too many wrong pairing codes: try again later", {
        retryAfterSeconds: Math.ceil((until - now) / 1000),
      });
    }
    const expiry = this.#codes.get(otp);
    if (expiry !== undefined && expiry > now) {
      this.#codes.delete(otp);
      record.failures = [];
      record.lockoutMs = 0;
      return;
    }
    this.#fail(address, channel, record, now);
    throw new CueportError(
      "AUTHENTICATION_FAILED",
      "Invalid pairing code: it is wrong, used or expired",
    );
  }

  /**
   * Keeps `record`. Past `MAX_RECORDS` (forged sources are many), addresses
   * neither locked nor failing lately are forgotten first, then the oldest;
   * the channel's global limit still counts their guesses.
   */
  #remember(key: string, record: AddressRecord, now: number): void {
    if (this.#addresses.size >= MAX_RECORDS) {
      const target = MAX_RECORDS * 0.9;
      for (const [k, r] of this.#addresses) {
        if (this.#addresses.size < target) break;
        const isQuiet = now >= r.lockedUntil &&
          r.failures.every((t) => now - t >= PAIRING_LIMITS.windowMs);
        if (isQuiet) this.#addresses.delete(k);
      }
      for (const k of this.#addresses.keys()) {
        if (this.#addresses.size < target) break;
        this.#addresses.delete(k);
      }
    }
    this.#addresses.set(key, record);
  }

  /**
   * Logs a refusal. Over OSC at most `OSC_LINES_PER_MINUTE` a minute, then
   * how many were left out: forged sources cannot flood the log.
   */
  #note(channel: PairingChannel, now: number, line: string): void {
    if (channel === "tcp") return this.#log(line);
    if (now - this.#oscLines.since >= 60_000) {
      if (this.#oscLines.skipped > 0) {
        this.#log(`${this.#oscLines.skipped} more OSC pairing refusal(s) in the last minute`);
      }
      this.#oscLines = { since: now, count: 0, skipped: 0 };
    }
    if (this.#oscLines.count++ < OSC_LINES_PER_MINUTE) this.#log(line);
    else this.#oscLines.skipped++;
  }

  #fail(address: string, channel: PairingChannel, record: AddressRecord, now: number): void {
    const limits = PAIRING_LIMITS;
    record.failures = [...record.failures.filter((t) => now - t < limits.windowMs), now];
    const global = [...this.#globalFailures[channel].filter((t) => now - t < limits.windowMs), now];
    this.#globalFailures[channel] = global;
    this.#note(
      channel,
      now,
      `Wrong pairing code from ${address} (${record.failures.length} in the last minute)`,
    );
    if (record.failures.length >= limits.perAddressFailures) {
      record.lockoutMs = Math.min(
        limits.maxLockoutMs,
        record.lockoutMs ? record.lockoutMs * 2 : limits.firstLockoutMs,
      );
      record.lockedUntil = now + record.lockoutMs;
      record.failures = [];
      this.#note(channel, now, `Pairing locked for ${address} for ${record.lockoutMs / 1000} s`);
    }
    if (global.length >= limits.globalFailures) {
      this.#pausedUntil[channel] = now + limits.globalPauseMs;
      this.#globalFailures[channel] = [];
      this.#log(
        channel === "osc"
          ? `Pairing over OSC (/connect) paused for ${limits.globalPauseMs / 1000} s: too many ` +
            "wrong codes; pairing over HTTP and the WebSocket goes on, and --osc-allow lets a " +
            "desk in meanwhile"
          : `Pairing paused for everyone for ${
            limits.globalPauseMs / 1000
          } s: too many wrong codes`,
      );
    }
  }
}

/**
 * One-time pairing codes: 6 digits from a cryptographic source, valid 5
 * minutes, single use. Guessing is made infeasible by limits: 5 failures per
 * address within a minute lock that address out (30 s, doubling to 15 min),
 * and 50 failures a minute from anywhere pause all pairing for a minute.
 * @module
 */
import { CueportError } from "../core/mod.ts";

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

interface AddressRecord {
  failures: number[];
  lockedUntil: number;
  lockoutMs: number;
}

/** Issues and consumes one-time codes. */
export class PairingCodes {
  #codes = new Map<string, number>(); // code -> expiry
  #addresses = new Map<string, AddressRecord>();
  #globalFailures: number[] = [];
  #pausedUntil = 0;
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
   * Uses a code up.
   * @throws {CueportError} RATE_LIMITED while locked out; AUTHENTICATION_FAILED for a wrong, used or expired code
   */
  consume(otp: string, address: string): void {
    const now = this.#now();
    const record = this.#addresses.get(address) ?? { failures: [], lockedUntil: 0, lockoutMs: 0 };
    this.#addresses.set(address, record);
    if (now < this.#pausedUntil || now < record.lockedUntil) {
      const until = Math.max(this.#pausedUntil, record.lockedUntil);
      this.#log(
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
    this.#fail(address, record, now);
    throw new CueportError(
      "AUTHENTICATION_FAILED",
      "Invalid pairing code: it is wrong, used or expired",
    );
  }

  #fail(address: string, record: AddressRecord, now: number): void {
    const limits = PAIRING_LIMITS;
    record.failures = [...record.failures.filter((t) => now - t < limits.windowMs), now];
    this.#globalFailures = [...this.#globalFailures.filter((t) => now - t < limits.windowMs), now];
    this.#log(`Wrong pairing code from ${address} (${record.failures.length} in the last minute)`);
    if (record.failures.length >= limits.perAddressFailures) {
      record.lockoutMs = Math.min(
        limits.maxLockoutMs,
        record.lockoutMs ? record.lockoutMs * 2 : limits.firstLockoutMs,
      );
      record.lockedUntil = now + record.lockoutMs;
      record.failures = [];
      this.#log(`Pairing locked for ${address} for ${record.lockoutMs / 1000} s`);
    }
    if (this.#globalFailures.length >= limits.globalFailures) {
      this.#pausedUntil = now + limits.globalPauseMs;
      this.#globalFailures = [];
      this.#log(
        `Pairing paused for everyone for ${limits.globalPauseMs / 1000} s: too many wrong codes`,
      );
    }
  }
}

/**
 * The open MCP sessions: ids that are cryptographically random, a bound on
 * how many are open (the least recently used goes when a new one needs its
 * place), and expiry of sessions idle too long. The clock is injected, so
 * tests move it instead of waiting.
 * @module
 */
import { Buffer } from "node:buffer";

/** What the table needs of a session. */
export interface Closable {
  /** Ends the session (its streams close); the table has already dropped it. */
  close(): void;
}

/** Options of the table. */
export interface SessionTableOptions {
  maxSessions: number;
  /** A session with no request for this long is closed, ms. */
  idleMs: number;
  /** Milliseconds on a monotonic clock (default `performance.now`). */
  now?: () => number;
}

/** A new session id: 32 random bytes from the system's CSPRNG, base64url (43 characters). */
export function newSessionId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** The sessions by id, least recently used first. */
export class SessionTable<S extends Closable> {
  #sessions = new Map<string, { session: S; lastSeen: number }>();
  #o: Required<SessionTableOptions>;

  /** Builds an empty table. */
  constructor(options: SessionTableOptions) {
    this.#o = { now: () => performance.now(), ...options };
  }

  /** How many sessions are open. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Adds a session; when the table is full the least recently used one is closed first. */
  add(id: string, session: S): void {
    while (this.#sessions.size >= this.#o.maxSessions) {
      const [oldest] = this.#sessions.keys();
      this.#drop(oldest!);
    }
    this.#sessions.set(id, { session, lastSeen: this.#o.now() });
  }

  /** The session, marked as used now; undefined when unknown, closed or expired. */
  use(id: string): S | undefined {
    const entry = this.#sessions.get(id);
    if (!entry) return undefined;
    if (this.#o.now() - entry.lastSeen > this.#o.idleMs) {
      this.#drop(id);
      return undefined;
    }
    // Re-inserted: the map's order is the order of use.
    this.#sessions.delete(id);
    entry.lastSeen = this.#o.now();
    this.#sessions.set(id, entry);
    return entry.session;
  }

  /** Forgets a session that ended by itself (DELETE); does not close it. */
  forget(id: string): void {
    this.#sessions.delete(id);
  }

  /** Closes the sessions idle longer than `idleMs`; returns how many. */
  sweep(): number {
    const now = this.#o.now();
    let closed = 0;
    for (const [id, entry] of this.#sessions) {
      // In order of use: the first one still fresh ends the search.
      if (now - entry.lastSeen <= this.#o.idleMs) break;
      this.#drop(id);
      closed++;
    }
    return closed;
  }

  /** Closes every session. */
  closeAll(): void {
    for (const id of [...this.#sessions.keys()]) this.#drop(id);
  }

  #drop(id: string): void {
    const entry = this.#sessions.get(id);
    if (!entry) return;
    this.#sessions.delete(id);
    try {
      entry.session.close();
    } catch {
      // a session that fails to close is gone from the table all the same
    }
  }
}

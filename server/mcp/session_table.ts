/**
 * The open MCP sessions: ids that are cryptographically random, bounds on
 * how many are open, and expiry of sessions idle too long. Sessions are in
 * two pools of `maxSessions` each: this machine's clients (the operator,
 * `cueport mcp`, local tools) and remote devices, so no remote device can
 * take a local client's place. A local session past its pool's bound closes
 * the least recently used local one, as before. A remote device has at most
 * `maxSessionsPerDevice`; past that, or with the remote pool full, a new
 * session is refused (`RATE_LIMITED`, with the seconds to wait) rather than
 * closing someone else's. The one exception is the device's own: its least
 * recently used session, once idle `recycleIdleMs`, makes way for its new
 * one (an assistant that restarted and lost its session id). The clock is
 * injected, so tests move it instead of waiting.
 * @module
 */
import { Buffer } from "node:buffer";
import { CueportError } from "../core/mod.ts";

/** What the table needs of a session. */
export interface Closable {
  /** Ends the session (its streams close); the table has already dropped it. */
  close(): void;
}

/** Options of the table. */
export interface SessionTableOptions {
  /** Open sessions of each pool (local clients, remote devices). */
  maxSessions: number;
  /** Open sessions of one remote device. */
  maxSessionsPerDevice: number;
  /** A session with no request for this long is closed, ms. */
  idleMs: number;
  /** A device at its bound may replace its own session idle this long, ms (default 60 s). */
  recycleIdleMs?: number;
  /** Milliseconds on a monotonic clock (default `performance.now`). */
  now?: () => number;
}

/** Who opens a session: the device (or `local`) it is bound to, and where it is. */
export interface SessionOwner {
  id: string;
  isLocal: boolean;
}

/** A place taken for a session being opened; `add` fills it, `release` gives it back. */
export interface Admission {
  readonly owner: SessionOwner;
  /** Gives the place back if the session was not added (safe to call again). */
  release(): void;
}

interface Entry<S> {
  session: S;
  owner: SessionOwner;
  lastSeen: number;
}

/** A new session id: 32 random bytes from the system's CSPRNG, base64url (43 characters). */
export function newSessionId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** The sessions by id, least recently used first. */
export class SessionTable<S extends Closable> {
  #sessions = new Map<string, Entry<S>>();
  #o: Required<SessionTableOptions>;
  /** Places taken and not yet added, by remote device; `#pendingRemote` in all. */
  #pending = new Map<string, number>();
  #pendingRemote = 0;

  /** Builds an empty table. */
  constructor(options: SessionTableOptions) {
    this.#o = { now: () => performance.now(), recycleIdleMs: 60_000, ...options };
  }

  /** How many sessions are open. */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Takes a place for a new session of `owner`, before it is opened.
   * @throws {CueportError} RATE_LIMITED when a remote device is at its bound, or the remote pool is full
   */
  admit(owner: SessionOwner): Admission {
    if (!owner.isLocal) this.#admitRemote(owner);
    let isHeld = !owner.isLocal;
    if (isHeld) this.#hold(owner.id, 1);
    return {
      owner,
      release: () => {
        if (isHeld) this.#hold(owner.id, -1);
        isHeld = false;
      },
    };
  }

  /** Adds a session in the place `admission` took; a full local pool closes its least recently used. */
  add(id: string, session: S, admission: Admission): void {
    admission.release();
    const { owner } = admission;
    if (owner.isLocal) {
      while (this.#count((e) => e.owner.isLocal) >= this.#o.maxSessions) {
        this.#drop(this.#oldest((e) => e.owner.isLocal)!);
      }
    }
    this.#sessions.set(id, { session, owner, lastSeen: this.#o.now() });
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

  /** Refuses, or makes room by closing the device's own idle session. */
  #admitRemote(owner: SessionOwner): void {
    const now = this.#o.now();
    const isMine = (e: Entry<S>) => !e.owner.isLocal && e.owner.id === owner.id;
    const mine = this.#count(isMine) + (this.#pending.get(owner.id) ?? 0);
    if (mine >= this.#o.maxSessionsPerDevice) {
      const oldest = this.#oldest(isMine);
      const idle = oldest === undefined ? 0 : now - this.#sessions.get(oldest)!.lastSeen;
      if (oldest === undefined || idle < this.#o.recycleIdleMs) {
        throw refusal(
          `This device has at most ${this.#o.maxSessionsPerDevice} MCP sessions open at once: end one (DELETE /mcp with its Mcp-Session-Id) or wait`,
          this.#o.recycleIdleMs - idle,
        );
      }
      this.#drop(oldest);
    }
    const isRemote = (e: Entry<S>) => !e.owner.isLocal;
    if (this.#count(isRemote) + this.#pendingRemote >= this.#o.maxSessions) {
      const oldest = this.#oldest(isRemote);
      const idle = oldest === undefined ? 0 : now - this.#sessions.get(oldest)!.lastSeen;
      throw refusal(
        `Remote devices have at most ${this.#o.maxSessions} MCP sessions open at once: wait for one to end`,
        this.#o.idleMs - idle,
      );
    }
  }

  #hold(device: string, delta: number): void {
    this.#pendingRemote += delta;
    const held = (this.#pending.get(device) ?? 0) + delta;
    if (held > 0) this.#pending.set(device, held);
    else this.#pending.delete(device);
  }

  #count(matches: (entry: Entry<S>) => boolean): number {
    let n = 0;
    for (const entry of this.#sessions.values()) if (matches(entry)) n++;
    return n;
  }

  /** The least recently used session that matches. */
  #oldest(matches: (entry: Entry<S>) => boolean): string | undefined {
    for (const [id, entry] of this.#sessions) if (matches(entry)) return id;
    return undefined;
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

function refusal(message: string, waitMs: number): CueportError {
  return new CueportError("RATE_LIMITED", message, {
    retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
  });
}

/**
 * How many variants of one file (sizes, qualities, formats, overlays) a
 * remote client may have made: every variant not in memory is a job on the
 * one render worker, so a client that asks for forty qualities of a photo at
 * once would hold the worker for all of them. Per client and file: at most
 * `inFlight` uncached variants at once, and at most `perMinute` different ones
 * a minute (asking again for one already counted is free). Past either:
 * `RATE_LIMITED`, the shape of the service's rate limit, with `retryAfterSeconds`.
 * @module
 */
import { CueportError } from "../core/mod.ts";

/** The limits. */
export interface VariantLimitOptions {
  /** Uncached variants of one file one client may wait for at once (default 2). */
  inFlight?: number;
  /** Different uncached variants of one file one client may ask for in a minute (default 20). */
  perMinute?: number;
  /** Client-and-file pairs remembered; the oldest are forgotten first (default 10,000). */
  maxTracked?: number;
  now?: () => number;
}

interface Track {
  windowStart: number;
  variants: Set<string>;
  inFlight: number;
}

const MINUTE_MS = 60_000;

/** The variants each remote client is having made, by file. */
export class VariantLimits {
  #tracks = new Map<string, Track>();
  #o: Required<VariantLimitOptions>;

  /** Builds the limits. */
  constructor(options: VariantLimitOptions = {}) {
    this.#o = {
      inFlight: 2,
      perMinute: 20,
      maxTracked: 10_000,
      now: () => performance.now(),
      ...options,
    };
  }

  /**
   * Counts `variant` of `file` for `client` while it is made; call the
   * returned function when it is done (made, failed or abandoned). `label` names
   * the picture in the refusal (default: `file "<file>"`).
   * @throws {CueportError} RATE_LIMITED with `retryAfterSeconds`
   */
  admit(client: string, file: string, variant: string, label = `file "${file}"`): () => void {
    const id = `${client}|${file}`;
    const now = this.#o.now();
    const track = this.#tracks.get(id) ?? { windowStart: now, variants: new Set(), inFlight: 0 };
    if (now - track.windowStart >= MINUTE_MS) {
      track.windowStart = now;
      track.variants.clear();
    }
    this.#tracks.delete(id);
    this.#tracks.set(id, track);
    if (this.#tracks.size > this.#o.maxTracked) {
      this.#tracks.delete(this.#tracks.keys().next().value!);
    }
    if (track.inFlight >= this.#o.inFlight) {
      throw new CueportError(
        "RATE_LIMITED",
        `Too many variants of ${label} being made for this client: at most ${this.#o.inFlight} at once`,
        { retryAfterSeconds: 1 },
      );
    }
    if (!track.variants.has(variant) && track.variants.size >= this.#o.perMinute) {
      throw new CueportError(
        "RATE_LIMITED",
        `Too many variants of ${label} for this client: at most ${this.#o.perMinute} a minute`,
        { retryAfterSeconds: Math.max(1, Math.ceil((track.windowStart + MINUTE_MS - now) / 1000)) },
      );
    }
    track.variants.add(variant);
    track.inFlight++;
    let isDone = false;
    return () => {
      if (isDone) return;
      isDone = true;
      track.inFlight--;
    };
  }
}

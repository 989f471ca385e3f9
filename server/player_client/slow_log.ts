/**
 * What the log says of a slow player: at most one line a minute, with the
 * figures that tell slow from hung, and how many more slow signs came since
 * the last line. A busy machine makes many slow answers; a line for each
 * would be more work for it and noise for the operator.
 * @module
 */
import type { HeartbeatResult } from "../../protocol/methods.ts";
import type { PendingRequest } from "./rpc_client.ts";
import type { WatchClock } from "./watch_clock.ts";

/** At most one "slow" line this often, ms. */
export const SLOW_LINE_EVERY_MS = 60_000;

/** Writes "Player slow" lines, one a minute at most. */
export class SlowLog {
  #clock: WatchClock;
  #write: (line: string) => void;
  #figures: () => string;
  #lastLineAt = -Infinity;
  #unsaid = 0;

  /** Lines go to `write`; `figures` describes the player at the moment of a line. */
  constructor(clock: WatchClock, write: (line: string) => void, figures: () => string) {
    this.#clock = clock;
    this.#write = write;
    this.#figures = figures;
  }

  /** A slow sign (`what`: "edit.apply answered after 7.2 s"): a line now, or counted for the next. */
  note(what: string): void {
    const now = this.#clock.now();
    if (now - this.#lastLineAt < SLOW_LINE_EVERY_MS) {
      this.#unsaid++;
      return;
    }
    const more = this.#unsaid > 0 ? `; ${this.#unsaid} more slow signs since the last line` : "";
    this.#write(`Player slow but working: ${what}; ${this.#figures()}${more}`);
    this.#lastLineAt = now;
    this.#unsaid = 0;
  }
}

/** What the figures of a line are made of. */
export interface PlayerFigures {
  last: HeartbeatResult | null;
  lastHeartbeatAgoMs: number | null;
  lastMessageAgoMs: number;
  pending: number;
  oldest: PendingRequest | null;
}

/**
 * The figures of a log line: `handled 120, queued 2, busy edit.apply for 7.2 s,
 * 3 requests pending (oldest edit.apply for 7.4 s), last heartbeat 0.3 s ago,
 * last message 0.3 s ago, output 24 frames/s`.
 */
export function figuresOf(f: PlayerFigures): string {
  const parts: string[] = [];
  if (f.last) {
    parts.push(`handled ${f.last.handled}`, `queued ${f.last.queued}`);
    if (f.last.beside > 0) parts.push(`beside ${f.last.beside}`);
    parts.push(
      f.last.busy ? `busy ${f.last.busy.method} for ${seconds(f.last.busy.forMs)}` : "idle",
    );
  }
  const oldest = f.oldest ? ` (oldest ${f.oldest.method} for ${seconds(f.oldest.forMs)})` : "";
  parts.push(`${f.pending} requests pending${oldest}`);
  parts.push(
    f.lastHeartbeatAgoMs === null
      ? "no heartbeat answered yet"
      : `last heartbeat ${seconds(f.lastHeartbeatAgoMs)} ago`,
  );
  parts.push(`last message ${seconds(f.lastMessageAgoMs)} ago`);
  if (f.last?.output) parts.push(`output ${f.last.output.framesPerSecond} frames/s`);
  return parts.join(", ");
}

/** `ms` as seconds with one decimal: `7.2 s`. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

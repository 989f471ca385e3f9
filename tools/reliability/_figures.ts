/**
 * What a probe's run itself commits it to report, beside the figures it declares
 * (`Probe.figures`): the harness requires the figures it measures of every service it starts,
 * and a fuzzer records what the service (or the player) said it received. Kept beside the
 * `Tally` (by it, not in it) so the row is made from both (`mod.ts`, `rowFigures`).
 * @module
 */
import type { Figure } from "./_result.ts";
import type { Tally } from "./_tally.ts";

/**
 * What the harness measures of every service it starts (`_harness.ts`): the peak RSS of the
 * service and of its player (sampled every second) and the local p99 (its `/health` every second).
 */
export const SERVICE_FIGURES: readonly Figure[] = ["serviceRss", "playerRss", "localP99"];

interface Committed {
  figures: Set<Figure>;
  received: number | null;
}

const COMMITTED = new WeakMap<Tally, Committed>();

function committed(tally: Tally): Committed {
  let entry = COMMITTED.get(tally);
  if (!entry) COMMITTED.set(tally, entry = { figures: new Set(), received: null });
  return entry;
}

/** Requires `figures` of the probe counting into `tally`: each one left null misses a target. */
export function requireFigures(tally: Tally, figures: readonly Figure[]): void {
  for (const figure of figures) committed(tally).figures.add(figure);
}

/**
 * Adds `n` to what the service (or the player) counted of the probe's inputs, read from its own
 * counters or answers, and requires that figure (`received`): 0 received is nothing exercised.
 */
export function countReceived(tally: Tally, n: number): void {
  const entry = committed(tally);
  entry.figures.add("received");
  entry.received = (entry.received ?? 0) + n;
}

/** The row's required figures and `received`: `declared` (`Probe.figures`) and the committed. */
export function rowFigures(
  tally: Tally,
  declared: readonly Figure[] = [],
): { figures: Figure[]; received: number | null } {
  const entry = COMMITTED.get(tally);
  const figures = [...new Set([...declared, ...(entry?.figures ?? [])])];
  return { figures, received: entry?.received ?? null };
}

/**
 * The note every row whose probe counts what the service received opens its notes with: what
 * was sent and what was received; null for a probe that does not count it.
 */
export function sentAndReceived(tally: Tally): string | null {
  const entry = COMMITTED.get(tally);
  if (!entry?.figures.has("received")) return null;
  const received = entry.received === null ? "not measured" : String(entry.received);
  return `${tally.inputs} input(s) sent; received by the service: ${received}`;
}

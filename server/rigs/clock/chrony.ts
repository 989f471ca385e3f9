/**
 * chrony, where the operator runs it: `chronyc tracking` read and parsed, so `group status` can
 * say whether the machine's clock is disciplined and how well chrony thinks it does. The show
 * clock still comes from the exchange between rigs (docs/rigs_clock.md says why); chrony keeps
 * the rigs' clock rates together, which keeps the exchange's offsets still between its polls.
 * @module
 */

/** What `chronyc tracking` says, in ms. */
export interface ChronyTracking {
  /** `Reference ID`: the source it follows (`7F7F0101 ()` for its local clock). */
  readonly referenceId: string;
  readonly stratum: number;
  /** `System time`: how far the system clock is ahead of chrony's time (negative: behind), ms. */
  readonly systemOffsetMs: number;
  readonly lastOffsetMs: number;
  readonly rmsOffsetMs: number;
  readonly rootDelayMs: number;
  readonly rootDispersionMs: number;
  /** `Normal`, `Insert second`, `Delete second` or `Not synchronised`. */
  readonly leapStatus: string;
  /** Whether it follows a source (leap status not `Not synchronised`, stratum below 16). */
  readonly isSynced: boolean;
  /** Its bound on the error against its reference: |system offset| + root delay / 2 + root dispersion, ms. */
  readonly errorMs: number;
}

/** Parses `chronyc tracking`'s output; null when it is not that. */
export function parseChronyTracking(text: string): ChronyTracking | null {
  const fields = new Map<string, string>();
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) fields.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const seconds = (name: string) => {
    const m = fields.get(name)?.match(/^([-+]?[\d.]+(?:e[-+]?\d+)?) seconds(?: (fast|slow))?/);
    if (!m) return NaN;
    return Number(m[1]) * 1000 * (m[2] === "slow" ? -1 : 1);
  };
  const stratum = Number(fields.get("Stratum"));
  const leapStatus = fields.get("Leap status") ?? "";
  const values = {
    systemOffsetMs: seconds("System time"),
    lastOffsetMs: seconds("Last offset"),
    rmsOffsetMs: seconds("RMS offset"),
    rootDelayMs: seconds("Root delay"),
    rootDispersionMs: seconds("Root dispersion"),
  };
  if (!Number.isFinite(stratum) || leapStatus === "" || !Object.values(values).every(isFinite)) {
    return null;
  }
  return {
    referenceId: fields.get("Reference ID") ?? "",
    stratum,
    ...values,
    leapStatus,
    isSynced: leapStatus !== "Not synchronised" && stratum < 16,
    errorMs: Math.abs(values.systemOffsetMs) + values.rootDelayMs / 2 + values.rootDispersionMs,
  };
}

/** Runs a command, its stdout, or null when it cannot run or fails. */
export type Run = (command: string, args: string[]) => Promise<string | null>;

const run: Run = async (command, args) => {
  try {
    const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "null" })
      .output();
    return out.success ? new TextDecoder().decode(out.stdout) : null;
  } catch {
    return null; // not installed
  }
};

/** chrony's tracking on this machine, or null when chronyc is missing or chronyd not running. */
export async function readChronyTracking(runner: Run = run): Promise<ChronyTracking | null> {
  const text = await runner("chronyc", ["-n", "tracking"]);
  return text === null ? null : parseChronyTracking(text);
}

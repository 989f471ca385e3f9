/**
 * `deno task reliability`: bounded probes against a real service. Each probe
 * starts Cueport as a subprocess (the player alone for the player-protocol
 * fuzz), does one kind of harm, and reports one row: inputs tried, crashes,
 * hangs, undocumented 5xx, acknowledged and lost, peak RSS. `main.ts` is the
 * command line; tests/tools/reliability_test.ts runs each probe in CI.
 * @module
 */
import { rowFigures, sentAndReceived } from "./_figures.ts";
import { hash32, Rng } from "./_prng.ts";
import { missedTargets } from "./_report.ts";
import { Tally } from "./_tally.ts";
import { type Mode, NotRun, type Probe, type ProbeResult } from "./_types.ts";
import { httpFuzz } from "./http_fuzz.ts";
import { wsFuzz } from "./ws_fuzz.ts";
import { oscFuzz } from "./osc_fuzz.ts";
import { midiFuzz } from "./midi_fuzz.ts";
import { playerFuzz } from "./player_fuzz.ts";
import { playerKill } from "./player_kill.ts";
import { serviceKill } from "./service_kill.ts";
import { showKill } from "./show_kill.ts";
import { exhaustion } from "./exhaustion.ts";
import { slowWsClient } from "./slow_ws_client.ts";
import { oversizedBodies } from "./oversized_bodies.ts";
import { stalledBodies } from "./stalled_bodies.ts";
import { concurrentPairing } from "./concurrent_pairing.ts";
import { imageBombs } from "./image_bombs.ts";
import { wavBombs } from "./wav_bombs.ts";
import { mdnsFlood } from "./mdns_flood.ts";
import { mdnsInterfaces } from "./mdns_interfaces.ts";
import { oscqueryEdge } from "./oscquery_edge.ts";
import { oscPatterns } from "./osc_patterns.ts";
import { udpReflection } from "./udp_reflection.ts";
import { mcpStreams } from "./mcp_streams.ts";
import { load } from "./load.ts";
import { shaderHang } from "./shader_hang.ts";
import { checkMemory } from "./check_memory.ts";
import { textureBudget } from "./texture_budget.ts";
import { browserOrphans } from "./browser_orphans.ts";
import { pageForgery } from "./page_forgery.ts";
import { otherAccount } from "./other_account.ts";
import { diskFull } from "./disk_full.ts";
import { dataDamage } from "./data_damage.ts";
import { glSoak } from "./gl_soak.ts";

export { killAll } from "./_children.ts";
export { formatTable, missedTargets, missingFigures, TARGETS } from "./_report.ts";
export type { Figure, Mode, Probe, ProbeContext, ProbeResult } from "./_types.ts";
export { NotRun } from "./_types.ts";

/** Every probe, in the order a run takes them. */
export const PROBES: readonly Probe[] = [
  httpFuzz,
  wsFuzz,
  oscFuzz,
  midiFuzz,
  playerFuzz,
  playerKill,
  serviceKill,
  showKill,
  exhaustion,
  slowWsClient,
  oversizedBodies,
  stalledBodies,
  concurrentPairing,
  imageBombs,
  wavBombs,
  mdnsFlood,
  mdnsInterfaces,
  oscqueryEdge,
  oscPatterns,
  udpReflection,
  mcpStreams,
  load,
  shaderHang,
  checkMemory,
  textureBudget,
  browserOrphans,
  otherAccount,
  pageForgery,
  diskFull,
  dataDamage,
  glSoak,
];

/** What to run. */
export interface SuiteOptions {
  seed: number;
  mode: Mode;
  /** Probe names; empty or absent runs all. */
  only?: readonly string[];
  /** Progress lines (default: none). */
  log?: (message: string) => void;
}

/**
 * Runs the chosen probes one after another (each owns the machine while it
 * runs) and returns their rows. A probe that throws keeps the counts it made, with `error`.
 * @example
 * ```ts
 * const results = await runProbes({ seed: 1, mode: "short", only: ["osc_fuzz"] });
 * console.log(formatTable(results, { seed: 1, mode: "short" }));
 * ```
 */
export async function runProbes(options: SuiteOptions): Promise<ProbeResult[]> {
  const log = options.log ?? (() => {});
  const only = options.only ?? [];
  const unknown = only.filter((name) => !PROBES.some((p) => p.name === name));
  if (unknown.length > 0) {
    throw new RangeError(
      `Unknown probe "${unknown[0]}": use one of ${PROBES.map((p) => p.name).join(", ")}`,
    );
  }
  const results: ProbeResult[] = [];
  for (const probe of PROBES) {
    if (only.length > 0 && !only.includes(probe.name)) continue;
    log(`${probe.name}: ${probe.summary}`);
    const started = performance.now();
    const tally = new Tally();
    let error: string | null = null;
    let notRun: string | null = null;
    try {
      await probe.run({
        seed: options.seed,
        mode: options.mode,
        rng: new Rng(options.seed ^ hash32(probe.name)),
        tally,
        log,
      });
    } catch (e) {
      if (e instanceof NotRun) notRun = e.message;
      else error = (e as Error)?.stack ?? String(e);
    }
    const sent = sentAndReceived(tally);
    if (sent !== null) tally.note(sent);
    const result = {
      ...tally.result(probe.name, Math.round((performance.now() - started) / 1000)),
      ...(probe.maxRssMb !== undefined ? { maxRssMb: probe.maxRssMb } : {}),
      ...rowFigures(tally, probe.figures),
      ...(notRun !== null ? { notRun } : {}),
      error,
    };
    const missed = missedTargets(result);
    const outcome = notRun !== null ? "NOT RUN" : missed.length === 0 ? "ok" : "MISSED";
    log(`${probe.name}: ${outcome}${missed.length === 0 ? "" : ` ${missed.join("; ")}`}`);
    results.push(result);
  }
  return results;
}

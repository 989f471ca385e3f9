/**
 * The targets of the issue, checked per row, and the one table.
 * @module
 */
import type { Figure, Mode, ProbeResult } from "./_result.ts";

/** The numbers to reach (issue: "Numbers to reach"). */
export const TARGETS = {
  /** Fuzzed inputs per transport in a full run. */
  fullFuzzInputs: 100_000,
  /** Player kills under edit load in a full run (3 in a short one). */
  fullPlayerKills: 15,
  /** Kills of the whole service (and its player) under edit load in a full run (2 in a short one). */
  fullServiceKills: 8,
  /** Peak resident memory of the service and of its player, MB. */
  maxRssMb: 300,
} as const;

/** What a required figure is called in a missed target, and its value in a row. */
const FIGURES: Record<Figure, { name: string; of: (r: ProbeResult) => unknown }> = {
  serviceRss: { name: "the service's peak RSS", of: (r) => r.peakRssMb.service },
  playerRss: { name: "the player's peak RSS", of: (r) => r.peakRssMb.player },
  localServed: { name: "whether local clients were served", of: (r) => r.localServed },
  acked: { name: "acknowledged edits", of: (r) => r.acked },
  localP99: { name: "the local p99 (no /health answered)", of: (r) => r.localP99Ms },
  received: { name: "what the service received", of: (r) => r.received },
};

/**
 * The required figures a row lacks (`ProbeResult.figures`): each one null (not measured),
 * `acked` of 0 (nothing acknowledged, so nothing could be lost: the probe tested nothing), and
 * `received` of 0, or 0 inputs sent (the service counted none of the probe's inputs, or the
 * probe sent none: nothing was exercised).
 */
export function missingFigures(result: ProbeResult): string[] {
  const missed: string[] = [];
  for (const figure of result.figures ?? []) {
    const value = FIGURES[figure].of(result);
    if (value === null || value === undefined) {
      missed.push(`${FIGURES[figure].name} not measured`);
    } else if (figure === "acked" && value === 0) {
      missed.push("0 edits acknowledged: nothing was tested");
    } else if (figure === "received" && (value === 0 || result.inputs === 0)) {
      missed.push(
        `${value} received by the service of ${result.inputs} inputs sent: nothing was exercised`,
      );
    }
  }
  return missed;
}

/** The targets a row misses, each said with its measurement; empty when all are met. */
export function missedTargets(result: ProbeResult): string[] {
  const missed: string[] = [];
  if (result.notRun !== undefined) missed.push(`not run: ${result.notRun}`);
  if (result.error !== null) missed.push(`did not complete: ${result.error}`);
  if (result.crashes > 0) missed.push(`${result.crashes} crash(es)`);
  if (result.playerRestarts > 0) missed.push(`${result.playerRestarts} player restart(s)`);
  if (result.hangs > 0) missed.push(`${result.hangs} hang(s)`);
  if (result.lost !== null && result.lost > 0) {
    missed.push(`${result.lost} of ${result.acked} acknowledged lost`);
  }
  if (result.duplicates !== null && result.duplicates > 0) {
    missed.push(`${result.duplicates} retried key(s) applied more than once`);
  }
  for (const role of ["service", "player"] as const) {
    const mb = result.peakRssMb[role];
    const target = result.maxRssMb ?? TARGETS.maxRssMb;
    if (mb !== null && mb >= target) {
      missed.push(`${role} peak RSS ${mb} MB (target < ${target})`);
    }
  }
  if (result.localServed === false) missed.push("local clients not served throughout");
  if (result.undocumented5xx > 0) {
    missed.push(`${result.undocumented5xx} undocumented 5xx (target 0)`);
  }
  if (result.notRun === undefined) missed.push(...missingFigures(result));
  // A row that counts what the service received says the same, with that figure.
  const saysReceived = result.figures?.includes("received") ?? false;
  if (result.notRun === undefined && result.inputs === 0 && !saysReceived) {
    missed.push("0 inputs sent: nothing was exercised");
  }
  missed.push(...result.shortfalls);
  if (result.inputs < result.requiredInputs) {
    missed.push(`${result.inputs} inputs (target ${result.requiredInputs})`);
  }
  return missed;
}

const COLUMNS = [
  "probe",
  "inputs",
  "crashes",
  "restarts",
  "hangs",
  "undoc 5xx",
  "acked",
  "lost",
  "dup",
  "RSS MB svc/player",
  "local",
  "local p99 ms",
  "s",
  "result",
];

function cells(r: ProbeResult): string[] {
  const na = (v: number | null) => (v === null ? "-" : String(v));
  const missed = missedTargets(r);
  return [
    r.probe,
    String(r.inputs),
    String(r.crashes),
    String(r.playerRestarts),
    String(r.hangs),
    String(r.undocumented5xx),
    na(r.acked),
    na(r.lost),
    na(r.duplicates),
    `${na(r.peakRssMb.service)}/${na(r.peakRssMb.player)}`,
    r.localServed === null ? "-" : r.localServed ? "yes" : "NO",
    r.localP99Ms === null ? "-" : String(r.localP99Ms),
    String(r.seconds),
    r.notRun !== undefined ? "NOT RUN" : missed.length === 0 ? "ok" : "MISSED",
  ];
}

/** The table, then each row's notes and missed targets. */
export function formatTable(
  results: readonly ProbeResult[],
  header: { seed: number; mode: Mode },
): string {
  const rows = results.map(cells);
  const sum = (f: (r: ProbeResult) => number | null) =>
    results.reduce((n, r) => n + (f(r) ?? 0), 0);
  const peak = (role: "service" | "player") =>
    Math.max(0, ...results.map((r) => r.peakRssMb[role] ?? 0));
  const failed = results.filter((r) => missedTargets(r).length > 0).length;
  rows.push([
    "total",
    String(sum((r) => r.inputs)),
    String(sum((r) => r.crashes)),
    String(sum((r) => r.playerRestarts)),
    String(sum((r) => r.hangs)),
    String(sum((r) => r.undocumented5xx)),
    String(sum((r) => r.acked)),
    String(sum((r) => r.lost)),
    String(sum((r) => r.duplicates)),
    `${peak("service")}/${peak("player")}`,
    "",
    "",
    String(sum((r) => r.seconds)),
    failed === 0 ? "ok" : `${failed} MISSED`,
  ]);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row.map((
      cell,
      i,
    ) => (i === 0 || i === row.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join("  ").trimEnd();
  const out = [
    `cueport reliability, ${header.mode} run, seed ${header.seed}`,
    "",
    line(COLUMNS),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.slice(0, -1).map(line),
    line(widths.map((w) => "-".repeat(w))),
    line(rows[rows.length - 1]!),
    "",
  ];
  for (const r of results) {
    const missed = missedTargets(r);
    if (r.notes.length === 0 && missed.length === 0) continue;
    out.push(`${r.probe}:`);
    for (const m of missed) out.push(`  MISSED ${m}`);
    for (const n of r.notes) out.push(`  ${n}`);
  }
  return out.join("\n");
}

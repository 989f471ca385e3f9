/**
 * The service's side of the `mdns_interfaces` probe, run inside the service
 * namespace (`_netns.ts`) where the machine has two interfaces and its own
 * loopback: starts the service watched (`_harness.ts`) with `--mdns on` on
 * every interface, times local requests on the namespace's loopback, runs an
 * asker (`_mdns_asker.ts`) in each client namespace at once, and prints the
 * row as one JSON line (the probe's process absorbs it, `Tally.absorb`).
 * @module
 */
import { rowFigures } from "./_figures.ts";
import { withService } from "./_harness.ts";
import { denoIn, jsonOf, type Subnet } from "./_netns.ts";
import type { AskerPlan, AskerReport } from "./_mdns_asker.ts";
import { percentile, Tally } from "./_tally.ts";
import { closingNotes, localRequest, timeLocal } from "./_udp_peer.ts";
import type { Mode } from "./_types.ts";

/** What the probe passes (the one argument, as JSON). */
export interface InsidePlan {
  mode: Mode;
  subnets: Subnet[];
}

/** Seconds of asking, and queries a second from each address. */
const LIMITS = { short: { seconds: 5 }, full: { seconds: 30 } };
/**
 * Under the service's unicast answers per destination (5 a second, bursts of 10;
 * docs/discovery.md, "Limits"): every query must be answered.
 */
const PER_SECOND = 4;
/** How long an asker may wait for the service's first answer, ms. */
const READY_WITHIN_MS = 20_000;
/** What an asker, or the service's start and stop, may take beyond its plan, ms. */
const SLACK_MS = 60_000;

/** How long an asker of `seconds` may run before it counts as hung (`jsonOf`), ms. */
function askerDeadlineMs(seconds: number): number {
  return READY_WITHIN_MS + seconds * 1000 + SLACK_MS;
}

/** How long the probe's inside script may run in `mode` before it counts as hung, ms. */
export function insideDeadlineMs(mode: Mode): number {
  return askerDeadlineMs(LIMITS[mode].seconds) + 2 * SLACK_MS;
}

async function inside(plan: InsidePlan, tally: Tally): Promise<void> {
  const { seconds } = LIMITS[plan.mode];
  // `--host 0.0.0.0` (after the harness's 127.0.0.1): every interface but the loopback.
  await withService(tally, { args: ["--mdns", "on", "--host", "0.0.0.0"] }, async (run) => {
    let isDone = false;
    const local = timeLocal(
      tally,
      () => localRequest(run.ports.http, "GET", "/api/v1/app-state"),
      () => isDone,
      100,
    );
    try {
      const reports = await Promise.all(plan.subnets.map((subnet) => {
        const asker: AskerPlan = {
          target: subnet.service,
          sources: subnet.clients,
          perSecond: PER_SECOND,
          seconds,
          readyWithinMs: READY_WITHIN_MS,
        };
        const child = denoIn(subnet.ns, new URL("./_mdns_asker.ts", import.meta.url), [
          JSON.stringify(asker),
        ]);
        return jsonOf<AskerReport>(child, `the asker in ${subnet.ns}`, askerDeadlineMs(seconds));
      }));
      for (const [i, report] of reports.entries()) noteSubnet(tally, plan.subnets[i]!, report);
      const all = reports.flatMap((r) => r.latenciesMs);
      const sent = reports.reduce((n, r) => n + r.sent, 0);
      const answered = reports.reduce((n, r) => n + r.answered, 0);
      tally.inputs += sent;
      tally.note(
        `${sent} unicast queries sent, ${answered} answered with the right interface's address; ` +
          `p99 ${percentile(all, 0.99) ?? "-"} ms`,
      );
    } finally {
      isDone = true;
      await local;
    }
  });
  closingNotes(tally);
}

/** One subnet's line, and its shortfalls: every query answered, each with this subnet's address. */
function noteSubnet(tally: Tally, subnet: Subnet, report: AskerReport): void {
  const p99 = percentile(report.latenciesMs, 0.99);
  tally.note(
    `${subnet.service}/24 (${subnet.clients.length} addresses): ${report.sent} sent, ` +
      `${report.answered} answered, p99 ${p99 ?? "-"} ms; ` +
      (report.readyMs === null
        ? "no answer before the counted queries"
        : `first answer after ${report.readyMs} ms`),
  );
  if (report.answered < report.sent) {
    tally.shortfall(
      `${report.sent - report.answered} of ${report.sent} queries to ${subnet.service} not ` +
        `answered right${report.examples.length > 0 ? ` (${report.examples.join("; ")})` : ""}`,
    );
  }
}

if (import.meta.main) {
  const plan = JSON.parse(Deno.args[0] ?? "{}") as InsidePlan;
  const tally = new Tally();
  const started = performance.now();
  let error: string | null = null;
  try {
    await inside(plan, tally);
  } catch (e) {
    error = (e as Error)?.stack ?? String(e);
  }
  const seconds = Math.round((performance.now() - started) / 1000);
  const figures = rowFigures(tally);
  console.log(JSON.stringify({ ...tally.result("mdns_interfaces", seconds), ...figures, error }));
  Deno.exit(0);
}

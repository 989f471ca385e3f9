/**
 * Probe `exhaustion`: the service runs under a lowered open-files limit
 * (256); idle, half-sent HTTP requests are opened from remote addresses
 * (127.0.0.2 alone, then many) until the service refuses more. Meanwhile a
 * local client (127.0.0.1) must still be answered, and the service must
 * live; once the idle connections go, it must serve again. What the service received: the
 * connections it refused (answered or closed) and the held ones it closed (`_idle_connections.ts`).
 * @module
 */
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import { probeGet } from "./_exchange.ts";
import { countReceived, requireFigures } from "./_figures.ts";
import { dropClosed, type IdleOutcome, openIdle } from "./_idle_connections.ts";
import type { RawConnection } from "./_raw_http.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const OPEN_FILES = 256;
const LIMITS = {
  short: { perAddress: 300, total: 1500, holdMs: 3000 },
  full: { perAddress: 1000, total: 4000, holdMs: 30_000 },
};
/** The `exhaustion` probe. */
export const exhaustion: Probe = {
  name: "exhaustion",
  summary: `idle half-sent connections under --nofile=${OPEN_FILES}; local clients must be served`,
  figures: ["serviceRss", "playerRss", "localServed"],
  run,
};

/** Local requests on fresh connections; answers counted by what came back. */
async function localChecks(run: ServiceRun, n: number, seen: Map<string, number>): Promise<number> {
  const answers = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        probeGet(run.ports.http, i % 2 ? "/api/v1/projects" : "/health", {
          timeoutMs: ANSWER_WITHIN_MS,
        }),
    ),
  );
  for (const a of answers) {
    const what = a.status !== null
      ? String(a.status)
      : (a.connectError?.replace(/ \d+\.\d+\.\d+\.\d+:\d+$/, "") ?? "no answer");
    seen.set(what, (seen.get(what) ?? 0) + 1);
  }
  return answers.filter((a) => a.status === 200).length;
}

function summary(seen: Map<string, number>): string {
  return [...seen].map(([what, n]) => `${n}x ${what}`).join(", ");
}

/** The half-sent request of an idle connection to `run`'s HTTP port. */
function idleRequest(run: ServiceRun): string {
  return `GET /health HTTP/1.1\r\nhost: 127.0.0.1:${run.ports.http}\r\n`;
}

/** Counts an `openIdle` outcome into `tally`: every connection tried sent, the answered received. */
function countIdle(tally: Tally, outcome: IdleOutcome): void {
  tally.inputs += outcome.opened + outcome.refused;
  countReceived(tally, outcome.answered);
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  const open: RawConnection[] = [];
  requireFigures(tally, ["received"]);
  await withService(tally, { openFiles: OPEN_FILES }, async (run) => {
    try {
      const idle = { port: run.ports.http, request: idleRequest(run) };
      const one = await openIdle(
        { ...idle, addresses: () => "127.0.0.2", count: limits.perAddress },
        open,
      );
      tally.note(
        `from 127.0.0.2 alone: ${one.opened} idle connection(s) held, ${one.refused} refused`,
      );
      countIdle(tally, one);
      // Refilled every round: the service may close idle connections (its header deadline),
      // and the pressure must last the whole hold.
      let next = 0;
      const addresses = () => `127.0.${2 + Math.floor(next / 250) % 200}.${2 + (next++ % 250)}`;
      const during = new Map<string, number>();
      let ok = 0;
      let asked = 0;
      let peakOpen = 0;
      const holdUntil = performance.now() + limits.holdMs;
      do {
        countReceived(tally, dropClosed(open));
        const count = limits.total - open.length;
        countIdle(tally, await openIdle({ ...idle, addresses, count }, open));
        peakOpen = Math.max(peakOpen, open.length);
        ok += await localChecks(run, 4, during);
        asked += 4;
        await new Promise((r) => setTimeout(r, 500));
      } while (performance.now() < holdUntil && run.service.isRunning);
      countReceived(tally, dropClosed(open));
      if (asked > 0) tally.served(ok === asked && run.service.isRunning);
      tally.note(
        `held up to ${peakOpen} idle connection(s) from many addresses for ${limits.holdMs} ms; ${ok} of ${asked} local requests answered 200 (${
          summary(during)
        })`,
      );
    } finally {
      for (const c of open) c.destroy();
    }
    if (!run.service.isRunning) return;
    await new Promise((r) => setTimeout(r, 500));
    const after = new Map<string, number>();
    const ok = await localChecks(run, 4, after);
    const again = `after releasing them: ${ok} of 4 local requests answered 200 (${
      summary(after)
    })`;
    if (ok === 4) tally.note(again);
    else tally.shortfall(`the service did not serve again: ${again}`);
  });
}

/**
 * Probe `exhaustion`: the service runs under a lowered open-files limit
 * (256); idle, half-sent HTTP requests are opened from remote addresses
 * (127.0.0.2 alone, then many) until the service refuses more. Meanwhile a
 * local client (127.0.0.1) must still be answered, and the service must
 * live; once the idle connections go, it must serve again.
 * @module
 */
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import { probeGet } from "./_exchange.ts";
import { RawConnection } from "./_raw_http.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const OPEN_FILES = 256;
const LIMITS = {
  short: { perAddress: 300, total: 1500, holdMs: 3000 },
  full: { perAddress: 1000, total: 4000, holdMs: 30_000 },
};
const BATCH = 100;

/** The `exhaustion` probe. */
export const exhaustion: Probe = {
  name: "exhaustion",
  summary: `idle half-sent connections under --nofile=${OPEN_FILES}; local clients must be served`,
  figures: ["serviceRss", "playerRss", "localServed"],
  run,
};

/** Opens up to `count` idle connections from `addresses`; stops when the service refuses a whole batch. */
async function openIdle(
  run: ServiceRun,
  addresses: () => string,
  count: number,
  open: RawConnection[],
): Promise<{ opened: number; refused: number }> {
  let opened = 0;
  let refused = 0;
  while (opened < count) {
    const batch = await Promise.all(Array.from({ length: BATCH }, async () => {
      try {
        const c = await RawConnection.connect({
          port: run.ports.http,
          localAddress: addresses(),
          timeoutMs: 1000,
        });
        c.send(`GET /health HTTP/1.1\r\nhost: 127.0.0.1:${run.ports.http}\r\n`); // never finished
        return c;
      } catch {
        return null;
      }
    }));
    await new Promise((r) => setTimeout(r, 200)); // a refusal may come as an answer and a close
    let batchRefused = 0;
    for (const c of batch) {
      if (c && !c.isClosed) {
        open.push(c);
        opened++;
      } else {
        c?.destroy();
        batchRefused++;
      }
    }
    refused += batchRefused;
    if (batchRefused === BATCH) break;
  }
  return { opened, refused };
}

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

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  const open: RawConnection[] = [];
  await withService(tally, { openFiles: OPEN_FILES }, async (run) => {
    try {
      const one = await openIdle(run, () => "127.0.0.2", limits.perAddress, open);
      tally.note(
        `from 127.0.0.2 alone: ${one.opened} idle connection(s) held, ${one.refused} refused`,
      );
      tally.inputs = one.opened + one.refused;
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
        const live = open.filter((c) => !c.isClosed);
        open.length = 0;
        open.push(...live);
        const more = await openIdle(run, addresses, limits.total - open.length, open);
        tally.inputs += more.opened + more.refused;
        peakOpen = Math.max(peakOpen, open.length);
        ok += await localChecks(run, 4, during);
        asked += 4;
        await new Promise((r) => setTimeout(r, 500));
      } while (performance.now() < holdUntil && run.service.isRunning);
      tally.localServed = ok === asked && run.service.isRunning;
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
    tally.note(`after releasing them: ${ok} of 4 local requests answered 200 (${summary(after)})`);
  });
}

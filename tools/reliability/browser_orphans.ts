/**
 * Probe `browser_orphans` (issue 40): the player of a service with a headless
 * output is SIGKILLed 3 times (the service starts it again each time). 5 s
 * after each kill, no process of the dead player's browser may be left, and
 * once the next player's browser is up no profile dir (`--user-data-dir`) of a
 * dead browser may be left. What is left is counted, then ended and removed
 * by the probe (by pid and path, never by name).
 * @module
 */
import type { ServiceRun } from "./_harness.ts";
import { isRunning } from "./_proc.ts";
import { sleep, withShow } from "./_output_show.ts";
import { browserProcesses, type ProcessRow, profileDirs } from "./_process_tree.ts";
import type { Probe, ProbeContext } from "./_types.ts";

/** Kills of the player: full; short (CI) makes one. */
const KILLS = 3;
const GONE_WITHIN_MS = 5000;
const BACK_WITHIN_MS = 60_000;

/** The `browser_orphans` probe. */
export const browserOrphans: Probe = {
  name: "browser_orphans",
  summary:
    "SIGKILL the player 3 times: no browser process of a dead player 5 s later, no stale profile dir after the next start",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  await withShow(tally, async (svc) => {
    const deadDirs = new Set<string>();
    let left = 0;
    let kills = 0;
    for (let k = 0; k < (context.mode === "short" ? 1 : KILLS); k++) {
      const before = await browserUp(svc);
      if (before === null) {
        throw new Error(`No browser under the player within ${BACK_WITHIN_MS / 1000} s`);
      }
      for (const dir of profileDirs(before.rows)) deadDirs.add(dir);
      svc.expectPlayerExits(1);
      Deno.kill(before.player, "SIGKILL");
      kills++;
      tally.inputs++;
      await sleep(GONE_WITHIN_MS);
      const alive: ProcessRow[] = [];
      for (const row of before.rows) if (await isRunning(row.pid)) alive.push(row);
      left += alive.length;
      tally.note(
        `kill ${
          k + 1
        }: ${alive.length} of ${before.rows.length} browser processes of the dead player left after 5 s`,
      );
      for (const row of alive) {
        try {
          Deno.kill(row.pid, "SIGKILL"); // the probe's own orphans, by pid
        } catch {
          // exited meanwhile
        }
      }
    }
    if ((await browserUp(svc)) === null) tally.shortfall("no browser after the last restart");
    const stale = [];
    for (const dir of deadDirs) {
      if (await Deno.stat(dir).then(() => true, () => false)) stale.push(dir);
    }
    tally.note(
      `profile dirs of dead browsers: ${deadDirs.size}, left after the next start: ${stale.length}`,
    );
    if (deadDirs.size === 0) {
      tally.shortfall(
        "no browser named its profile dir (--user-data-dir): stale profiles not checked",
      );
    }
    for (const dir of stale) await Deno.remove(dir, { recursive: true }).catch(() => {});
    if (left > 0) {
      tally.shortfall(
        `${left} browser process(es) of dead players left 5 s after ${kills} kills (target 0)`,
      );
    }
    if (stale.length > 0) {
      tally.shortfall(`${stale.length} stale profile dir(s) after the next start (target 0)`);
    }
  });
}

/** The player and its browser processes once there are some, or null. */
async function browserUp(svc: ServiceRun): Promise<{ player: number; rows: ProcessRow[] } | null> {
  const deadline = performance.now() + BACK_WITHIN_MS;
  while (performance.now() < deadline) {
    const player = await svc.playerPid();
    const rows = player === null ? [] : await browserProcesses(player);
    if (player !== null && rows.length > 0) {
      await sleep(2000); // its helper processes started too
      return { player, rows: await browserProcesses(player) };
    }
    await sleep(250);
  }
  return null;
}

/**
 * Probe `player_kill`: four clients stream `song.add` edits, each with its
 * own `Idempotency-Key`, retried with the same key on 503, 504 and network
 * errors, while the player is SIGKILLed every 2 s (15 times in a full run, 3
 * in a short one). Every acknowledged edit's Song must be in the Project, and
 * no key may be applied twice (each key's title is unique: no title twice),
 * read before and after a clean restart of the service.
 * @module
 */
import { EditLoad, songsFromService, waitReady } from "./_edit_load.ts";
import { TARGETS } from "./_report.ts";
import { withService } from "./_harness.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const CLIENTS = 4;
/** A kill every 2 s, and never before the player has been back a moment. */
const KILL_EVERY_MS = 2000;

/** The `player_kill` probe. */
export const playerKill: Probe = {
  name: "player_kill",
  summary:
    "SIGKILL the player every 2 s under keyed, retried edits; none acknowledged lost, none applied twice",
  figures: ["serviceRss", "playerRss", "acked"],
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally, rng } = context;
  const kills = context.mode === "full" ? TARGETS.fullPlayerKills : 3;
  let done = 0;
  await withService(tally, {}, async (run) => {
    const load = new EditLoad(run, tally, {
      clients: CLIENTS,
      prefix: `Kill probe ${context.seed}`,
    });
    let lastKill = performance.now();
    for (let k = 0; k < kills; k++) {
      const backAt = performance.now();
      const at = Math.max(lastKill + KILL_EVERY_MS, backAt + rng.range(200, 600));
      await new Promise((r) => setTimeout(r, at - performance.now()));
      let pid = await run.playerPid();
      for (let tries = 0; pid === null && tries < 100; tries++) {
        await new Promise((r) => setTimeout(r, 100));
        pid = await run.playerPid();
      }
      if (pid === null) continue;
      run.expectPlayerExits(1);
      Deno.kill(pid, "SIGKILL");
      lastKill = performance.now();
      done++;
      if (!(await waitReady(run))) {
        tally.shortfall(`the player was not back 30 s after kill ${k + 1}`);
      }
    }
    await new Promise((r) => setTimeout(r, 500)); // edits after the last restart
    await load.stop();
    tally.acked = load.acked.size;
    const before = load.audit(await songsFromService(run));
    await run.restart();
    if (!(await waitReady(run))) {
      throw new Error("The service's player was not ready after a restart");
    }
    const after = load.audit(await songsFromService(run));
    tally.lost = new Set([...before.missing, ...after.missing]).size;
    tally.duplicates = Math.max(before.duplicates, after.duplicates);
    tally.note(
      `${done} kill(s); ${load.acked.size} of ${load.sent} keyed edits acknowledged, ${load.retries} retries (${load.unanswered} unanswered in 10 s); missing before restart: ${before.missing.length}, after: ${after.missing.length}; extra copies before: ${before.duplicates}, after: ${after.duplicates}`,
    );
    if (after.missing.length > 0) {
      tally.example(
        "lost",
        after.missing.slice(0, 5).map((id) => `${id} "${load.acked.get(id)}"`).join(", "),
      );
    }
    const repeated = [...before.repeated, ...after.repeated];
    if (repeated.length > 0) {
      tally.example(
        "applied twice",
        repeated.slice(0, 5).map(([t, n]) => `"${t}" x${n}`).join(", "),
      );
    }
  });
  if (done < kills) tally.shortfall(`${done} player kills (target ${kills})`);
}

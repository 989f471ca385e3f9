/**
 * Probe `service_kill`: a power cut under load. Four clients stream keyed,
 * retried `song.add` edits (1,000 in a full run, 150 in a short one) while
 * the whole service, and its player, are SIGKILLed at random points (8 times
 * in a full run, 2 in a short one) and started again on the same data dir.
 * After each kill, with the service down: every JSON file under the data dir
 * parses and every acknowledged edit is in `project.json`; once the next
 * start is ready: no `*.tmp` file is left (a start removes them). At the end:
 * no edit lost and no key applied twice, on disk and as the service reads it.
 * @module
 */
import { EditLoad, songsFromService, songsOnDisk, waitReady } from "./_edit_load.ts";
import { TARGETS } from "./_report.ts";
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const CLIENTS = 4;
const LIMITS = {
  short: { edits: 150, kills: 2 },
  full: { edits: 1000, kills: TARGETS.fullServiceKills },
};

/** The `service_kill` probe. */
export const serviceKill: Probe = {
  name: "service_kill",
  summary:
    "SIGKILL the service and its player under keyed edits, restart on the same data dir; files whole, nothing lost",
  figures: ["serviceRss", "playerRss", "acked"],
  run,
};

/** Every file under `dir`, as paths relative to it. */
async function files(dir: string, under = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/${under}`)) {
    const path = under ? `${under}/${entry.name}` : entry.name;
    if (entry.isDirectory) found.push(...(await files(dir, path)));
    else if (entry.isFile) found.push(path);
  }
  return found;
}

/** Counts every JSON file that does not parse; returns how many were read. */
async function checkJson(dataDir: string, tally: Tally, kill: number): Promise<string[]> {
  const json = (await files(dataDir)).filter((f) => f.endsWith(".json"));
  for (const path of json) {
    try {
      JSON.parse(await Deno.readTextFile(`${dataDir}/${path}`));
    } catch (error) {
      tally.shortfall(`after kill ${kill}: ${path} does not parse: ${(error as Error).message}`);
    }
  }
  return json;
}

const temps = async (dataDir: string) =>
  (await files(dataDir)).filter((f) => /\.[0-9a-f]{8}\.tmp$/.test(f));

/**
 * Toggles mute beside the edits, so `player.json` is being written when a
 * kill comes too; pauses with the load. Returns how many toggles were answered.
 */
async function toggleMute(run: ServiceRun, load: EditLoad): Promise<number> {
  let answered = 0;
  while (!load.isDone) {
    await load.whenResumed();
    try {
      const res = await fetch(`http://127.0.0.1:${run.ports.http}/api/v1/action`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "MUTE_TOGGLE" }),
        signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      });
      await res.body?.cancel();
      if (res.status === 200) answered++;
    } catch {
      // killed meanwhile: the edit clients count what matters
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return answered;
}

async function run(context: ProbeContext): Promise<void> {
  const { tally, rng } = context;
  const limits = LIMITS[context.mode];
  // Kill points: when this many keys are sent, spread over the run; then a random delay.
  const points = Array.from(
    { length: limits.kills },
    (_, k) => Math.floor((limits.edits * (k + rng.range(20, 80) / 100)) / (limits.kills + 1)),
  ).sort((a, b) => a - b);
  let done = 0;
  const seen = { json: new Set<string>(), reads: 0, tempsAtKill: [] as string[] };
  await withService(tally, {}, async (run) => {
    const load = new EditLoad(run, tally, {
      clients: CLIENTS,
      prefix: `Power cut ${context.seed}`,
      limit: limits.edits,
    });
    const toggles = toggleMute(run, load);
    for (const point of points) {
      while (load.sent < point && !load.isDone) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, rng.range(0, 40)));
      load.pause();
      const kill = ++done;
      await run.kill(async () => {
        const json = await checkJson(run.dataDir, tally, kill);
        seen.reads += json.length;
        for (const path of json) seen.json.add(path);
        seen.tempsAtKill.push(...(await temps(run.dataDir)));
        const { missing } = load.audit(await songsOnDisk(run.dataDir));
        if (missing.length > 0) {
          tally.shortfall(`after kill ${kill}: ${missing.length} acknowledged Song(s) not on disk`);
        }
      });
      if (!(await waitReady(run))) throw new Error(`The player was not ready after kill ${kill}`);
      let left = await temps(run.dataDir);
      if (left.length > 0) { // a write of the new start may be under way: look again
        await new Promise((r) => setTimeout(r, 1000));
        const again = new Set(await temps(run.dataDir));
        left = left.filter((f) => again.has(f));
      }
      if (left.length > 0) {
        tally.shortfall(`after kill ${kill} and a start: temp file(s) left: ${left.join(", ")}`);
      }
      load.resume();
    }
    await load.finished();
    const muted = await toggles;
    tally.acked = load.acked.size;
    const onDisk = load.audit(await songsOnDisk(run.dataDir));
    const served = load.audit(await songsFromService(run));
    tally.lost = new Set([...onDisk.missing, ...served.missing]).size;
    tally.duplicates = Math.max(onDisk.duplicates, served.duplicates);
    tally.note(
      `${done} kill(s); ${load.acked.size} of ${load.sent} keyed edits acknowledged, ${load.retries} retries; ${muted} mute toggles beside; JSON files parsed after the kills: ${seen.reads} (${
        [...seen.json].sort().join(", ")
      }); temp files found right after them: ${seen.tempsAtKill.length} (${
        seen.tempsAtKill.join(", ") || "none"
      }), removed by the next start`,
    );
    if (onDisk.repeated.length > 0) {
      tally.example(
        "applied twice",
        onDisk.repeated.slice(0, 5).map(([t, n]) => `"${t}" x${n}`).join(", "),
      );
    }
  });
  if (done < limits.kills) tally.shortfall(`${done} service kills (target ${limits.kills})`);
}

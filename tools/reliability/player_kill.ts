/**
 * Probe `player_kill`: a few clients stream `song.add` edits while the
 * player is SIGKILLed (15 times in a full run, 3 in a short one). Every
 * acknowledged edit's created Song must be in the Project afterwards, read
 * before and after a clean restart of the service.
 * @module
 */
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import type { Tally } from "./_tally.ts";
import { TARGETS } from "./_report.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const CLIENTS = 4;
/** An edit waits for the player (playerTimeoutMs, 5 s) at most: answered within that plus 5 s. */
const EDIT_ANSWER_MS = 5000 + ANSWER_WITHIN_MS;
const READY_WITHIN_MS = 30_000;

/** The `player_kill` probe. */
export const playerKill: Probe = {
  name: "player_kill",
  summary: "SIGKILL the player under a stream of edits; no acknowledged edit may be lost",
  run,
};

async function waitReady(run: ServiceRun): Promise<boolean> {
  const deadline = performance.now() + READY_WITHIN_MS;
  while (performance.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${run.ports.http}/health`, {
        signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      });
      if ((await res.json()).ready === true) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** The Song ids of the demo Project, once the service answers them (it may be restarting its player). */
async function songIds(run: ServiceRun): Promise<Set<string>> {
  const deadline = performance.now() + READY_WITHIN_MS;
  let last = "";
  while (performance.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${run.ports.http}/api/v1/projects/demo/songs`, {
        signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      });
      const body = await res.json();
      if (res.status === 200) {
        return new Set((body.songs as Array<{ songID: string }>).map((s) => s.songID));
      }
      last = `${res.status} ${JSON.stringify(body).slice(0, 200)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`The Songs could not be read within ${READY_WITHIN_MS} ms: ${last}`);
}

async function editClient(
  run: ServiceRun,
  tally: Tally,
  client: number,
  state: { isRunning: boolean; acked: Map<string, string> },
): Promise<void> {
  for (let n = 0; state.isRunning; n++) {
    const title = `Kill probe ${client}-${n}`;
    tally.inputs++;
    try {
      const res = await fetch(`http://127.0.0.1:${run.ports.http}/api/v1/edit`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "song.add", params: { title } }),
        signal: AbortSignal.timeout(EDIT_ANSWER_MS),
      });
      const body = await res.json();
      if (res.status === 200) {
        const id = body.edits?.[0]?.created?.songID;
        if (typeof id === "string") state.acked.set(id, title);
        else tally.example("answer", `200 without a created songID: ${JSON.stringify(body)}`);
      } else {
        tally.answer(res.status, body.error?.code ?? null, "POST /api/v1/edit", () => title);
        if (res.status === 503) await new Promise((r) => setTimeout(r, 20)); // the player restarts
      }
    } catch (error) {
      if ((error as Error).name === "TimeoutError") {
        tally.hang(`POST /api/v1/edit: no answer in ${EDIT_ANSWER_MS} ms`);
      } else if (!(await run.revive())) tally.example("error", (error as Error).message);
    }
  }
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const kills = context.mode === "full" ? TARGETS.fullPlayerKills : 3;
  let done = 0;
  await withService(tally, {}, async (run) => {
    const state = { isRunning: true, acked: new Map<string, string>() };
    const clients = Array.from({ length: CLIENTS }, (_, c) => editClient(run, tally, c, state));
    for (let k = 0; k < kills; k++) {
      await new Promise((r) => setTimeout(r, context.rng.range(300, 1500)));
      let pid = await run.playerPid();
      for (let tries = 0; pid === null && tries < 100; tries++) {
        await new Promise((r) => setTimeout(r, 100));
        pid = await run.playerPid();
      }
      if (pid === null) continue;
      run.expectPlayerExits(1);
      Deno.kill(pid, "SIGKILL");
      done++;
      if (!(await waitReady(run))) {
        tally.note(`the player was not back ${READY_WITHIN_MS} ms after kill ${k + 1}`);
      }
    }
    await new Promise((r) => setTimeout(r, 500)); // edits after the last restart
    state.isRunning = false;
    await Promise.all(clients);
    tally.acked = state.acked.size;
    const missing = (ids: Set<string>) => [...state.acked.keys()].filter((id) => !ids.has(id));
    const before = missing(await songIds(run));
    await run.restart();
    if (!(await waitReady(run))) {
      throw new Error("The service's player was not ready after a restart");
    }
    const after = missing(await songIds(run));
    tally.lost = new Set([...before, ...after]).size;
    tally.note(
      `${done} kill(s); ${state.acked.size} of ${tally.inputs} edits acknowledged; missing before restart: ${before.length}, after: ${after.length}`,
    );
    if (after.length > 0) {
      tally.example(
        "lost",
        after.slice(0, 5).map((id) => `${id} "${state.acked.get(id)}"`).join(", "),
      );
    }
  });
  if (done < kills) tally.shortfall(`${done} player kills (target ${kills})`);
}

/**
 * Probe `wav_bombs`: 8 MiB WAVs of a million empty chunks (no `fmt `, no
 * `data`), uploaded one, then three at once (full run: more rounds). The
 * player measures each upload from its bytes; each must be refused
 * (`CORRUPT_MEDIA`) at once, while a local client's `SET_CONTROL` actions,
 * sent every 100 ms throughout, keep being answered and the player is never
 * restarted as hung. "At once" is counted in CPU time: the service's and the
 * player's CPU time for a round of refusals, over the bombs in it, must stay
 * under `REFUSAL_CPU_MS`; it holds on a machine kept busy, where the
 * wall-clock time (a note) is mostly the wait for a core while 8 MiB arrive
 * (docs/security.md, "WAV bombs"). The notes hold each refusal's wall-clock
 * and CPU time, the player's restarts and the actions' p99.
 * @module
 */
import { cpuMsOf } from "./_cpu_time.ts";
import { withService } from "./_harness.ts";
import { chunkBombWav } from "./_media_bombs.ts";
import { LocalTimer, PlayerWatch, request, summary, upload } from "./_media_clients.ts";
import type { Probe, ProbeContext } from "./_types.ts";

/** Rounds of "one, then three at once". */
const ROUNDS = { short: 1, full: 8 };
/**
 * The service's and the player's CPU time for one bomb's refusal must stay under this, ms
 * (measured at load average 21: about 100 ms, nearly all of it receiving and staging the
 * 8 MiB; a walk of the million chunks one read at a time takes tens of seconds).
 */
export const REFUSAL_CPU_MS = 1000;

/** The `wav_bombs` probe. */
export const wavBombs: Probe = {
  name: "wav_bombs",
  summary:
    "8 MiB WAVs of a million empty chunks, one and three at once; refused at once, actions answered",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const bomb = chunkBombWav(8 * 1024 * 1024);
  await withService(tally, {}, async (svc) => {
    const port = svc.ports.http;
    const players = new PlayerWatch(svc);
    let n = 0;
    const timer = new LocalTimer(tally, "POST /api/v1/action SET_CONTROL", () =>
      request(port, {
        method: "POST",
        path: "/api/v1/action",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "SET_CONTROL", params: ["A", (n++ % 10) / 10] }),
      }));
    try {
      await new Promise((r) => setTimeout(r, 500)); // actions timed before the bombs too
      for (let round = 0; round < ROUNDS[context.mode]; round++) {
        for (const count of [1, 3]) {
          const pids = [svc.service.pid, await svc.playerPid()];
          const before = await cpuMsOf(pids);
          const answers = await Promise.all(
            Array.from({ length: count }, (_, i) => upload(port, `bomb-${round}-${i}.wav`, bomb)),
          );
          const after = await cpuMsOf(pids);
          const perBomb = before === null || after === null
            ? null
            : Math.round((after - before) / count);
          for (const { answer, fileId } of answers) {
            tally.inputs++;
            tally.answer(answer.status, answer.code, "POST /api/v1/files/upload (WAV bomb)");
            if (answer.status === null) tally.hang(`WAV bomb upload: no answer in ${answer.ms} ms`);
            else if (fileId !== null || answer.code !== "CORRUPT_MEDIA") {
              tally.shortfall(`WAV bomb upload answered ${answer.status} ${answer.code}`);
            }
          }
          const missed = refusalShortfall(perBomb);
          if (missed) tally.shortfall(`${count} at once: ${missed}`);
          if (round === 0) {
            const list = answers.map((a) => a.answer);
            tally.note(
              `${count} at once: ${summary(list)}; ${
                list.map((a) => `${a.ms} ms`).join(", ")
              } wall-clock; ${perBomb ?? "-"} ms CPU a bomb (service and player)`,
            );
          }
        }
      }
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      const { p99, count } = await timer.stop();
      const restarts = await players.stop();
      if (count > 0) tally.served(tally.hangs === 0);
      tally.note(`player restarts: ${restarts}`);
      tally.note(`local p99: ${p99} ms (${count} POST /api/v1/action)`);
      tally.note("ffmpeg: not used (a WAV is measured from its chunks)");
      tally.note(`load average at the end: ${Deno.loadavg()[0]!.toFixed(1)}`);
    }
  });
}

/**
 * Why a round's refusals missed the CPU target, or null when they met it. CPU time
 * that could not be read misses too: a figure not measured is never a pass.
 */
export function refusalShortfall(cpuMsPerBomb: number | null): string | null {
  if (cpuMsPerBomb === null) return "the CPU time of the refusals not measured";
  if (cpuMsPerBomb < REFUSAL_CPU_MS) return null;
  return `WAV bomb refusal took ${cpuMsPerBomb} ms of CPU (service and player; target < ${REFUSAL_CPU_MS})`;
}

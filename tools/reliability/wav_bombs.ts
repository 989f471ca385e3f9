/**
 * Probe `wav_bombs`: 8 MiB WAVs of a million empty chunks (no `fmt `, no
 * `data`), uploaded one, then three at once (full run: more rounds). The
 * player measures each upload from its bytes; each must be refused
 * (`CORRUPT_MEDIA`) at once, while a local client's `SET_CONTROL` actions,
 * sent every 100 ms throughout, keep being answered and the player is never
 * restarted as hung. The notes hold each refusal's time, the player's
 * restarts and the actions' p99.
 * @module
 */
import { withService } from "./_harness.ts";
import { chunkBombWav } from "./_media_bombs.ts";
import { LocalTimer, PlayerWatch, request, summary, upload } from "./_media_clients.ts";
import type { Probe, ProbeContext } from "./_types.ts";

/** Rounds of "one, then three at once". */
const ROUNDS = { short: 1, full: 8 };
/** An upload of a bomb must be refused within this, ms (measured: a few ms of probing). */
const REFUSED_WITHIN_MS = 2000;

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
          const answers = await Promise.all(
            Array.from({ length: count }, (_, i) => upload(port, `bomb-${round}-${i}.wav`, bomb)),
          );
          for (const { answer, fileId } of answers) {
            tally.inputs++;
            tally.answer(answer.status, answer.code, "POST /api/v1/files/upload (WAV bomb)");
            if (answer.status === null) tally.hang(`WAV bomb upload: no answer in ${answer.ms} ms`);
            else if (fileId !== null || answer.code !== "CORRUPT_MEDIA") {
              tally.shortfall(`WAV bomb upload answered ${answer.status} ${answer.code}`);
            } else if (answer.ms > REFUSED_WITHIN_MS) {
              tally.shortfall(
                `WAV bomb refused after ${answer.ms} ms (target < ${REFUSED_WITHIN_MS})`,
              );
            }
          }
          if (round === 0) {
            const list = answers.map((a) => a.answer);
            tally.note(
              `${count} at once: ${summary(list)}; ${list.map((a) => `${a.ms} ms`).join(", ")}`,
            );
          }
        }
      }
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      const { p99, count } = await timer.stop();
      const restarts = await players.stop();
      tally.localServed = tally.hangs === 0;
      tally.note(`player restarts: ${restarts}`);
      tally.note(`local p99: ${p99} ms (${count} POST /api/v1/action)`);
      tally.note("ffmpeg: not used (a WAV is measured from its chunks)");
    }
  });
}

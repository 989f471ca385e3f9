/**
 * Probe `player_fuzz`: the player alone, started as the service starts it,
 * fed mutated JSON-RPC lines on stdin; after each batch a `state.get` must
 * be answered within 5 s. A crash is the player exiting; it is started again
 * and the fuzzing goes on. `shutdown` is never sent.
 * @module
 */
import { tempDir } from "./_children.ts";
import { validPlayerRequest } from "./_corpus.ts";
import { countReceived, requireFigures, rowFigures } from "./_figures.ts";
import { ANSWER_WITHIN_MS } from "./_harness.ts";
import { interestingValue, isSafeInput, mutateText, mutateValue, nested } from "./_mutate.ts";
import { PlayerProcess } from "./_player_process.ts";
import { readMemory } from "./_proc.ts";
import type { Rng } from "./_prng.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const LIMITS = {
  short: { inputs: 5_000, seconds: 12 },
  full: { inputs: 100_000, seconds: 900 },
};
const BATCH = 100;
const STARTUP_MS = 30_000;
const encoder = new TextEncoder();
/** The answers a started player owes the probe itself: `initialize` and the first `state.get`. */
const START_ANSWERS = 2;

/** The `player_fuzz` probe. */
export const playerFuzz: Probe = {
  name: "player_fuzz",
  summary: "mutated JSON-RPC lines on the player's stdin",
  run,
};

/** One fuzzed line (with its newline), or null when unsafe. */
function fuzzLine(rng: Rng, n: number): Uint8Array | null {
  const valid = validPlayerRequest(rng, rng.chance(0.5) ? n : `f${n}`);
  const r = rng.next();
  let line: Uint8Array;
  if (r < 0.1) line = encoder.encode(JSON.stringify(valid));
  else if (r < 0.5) line = encoder.encode(JSON.stringify(mutateValue(valid, rng)));
  else if (r < 0.75) line = mutateText(JSON.stringify(valid), rng);
  else if (r < 0.85) {
    line = encoder.encode(JSON.stringify(rng.pick([
      [valid, valid],
      [],
      { jsonrpc: "2.0", id: interestingValue(rng), method: "state.get" },
      { jsonrpc: "2.0", method: "state.update", params: { updates: [], now: 0 } },
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "1.0", id: 1, method: "state.get" },
      { id: 1, method: "action.run", params: null },
      nested(rng.range(1000, 100_000), rng),
    ])));
  } else if (r < 0.95) line = rng.bytes(rng.size(4096));
  else {line = encoder.encode(
      `{"jsonrpc":"2.0","id":"big","method":"x","params":"${
        "a".repeat(rng.range(1, 8) * 1024 * 1024)
      }"}`,
    );}
  if (!isSafeInput(line) || new TextDecoder().decode(line).includes("shutdown")) return null;
  const out = new Uint8Array(line.length + 1);
  out.set(line);
  out[line.length] = 0x0a;
  return out;
}

async function startPlayer(dataDir: string, tally: Tally): Promise<PlayerProcess | null> {
  const player = PlayerProcess.spawn(dataDir);
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: "1.0", client: { name: "reliability", version: "0" } },
  });
  await player.write(encoder.encode(init + "\n"));
  if (await player.request("state.get", "ready", STARTUP_MS)) return player;
  tally.example("start", `the player did not start: ${player.stderrTail().slice(-300)}`);
  await player.kill();
  return null;
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  tally.requiredInputs = context.mode === "full" ? 100_000 : 0;
  const dir = await tempDir("cueport-reliability-player-");
  const dataDir = dir.path;
  let player = await startPlayer(dataDir, tally);
  // From the player's start, not the probe's: a loaded machine's start took the 12 s.
  const deadline = performance.now() + limits.seconds * 1000;
  let probe = 0;
  let internalErrors = 0;
  const samples: string[] = [];
  requireFigures(tally, ["playerRss"]);
  let ownAnswers = START_ANSWERS; // of the player now running: its start, then each probe
  const ended = (p: PlayerProcess) => {
    countReceived(tally, Math.max(0, p.answers - ownAnswers));
    internalErrors += p.internalErrors;
    samples.push(...p.internalErrorSamples);
    ownAnswers = START_ANSWERS;
  };
  try {
    if (!player) throw new Error("The player did not start");
    while (tally.inputs < limits.inputs && performance.now() < deadline) {
      const lines: string[] = [];
      for (let i = 0; i < BATCH; i++) {
        const line = fuzzLine(context.rng, tally.inputs);
        if (!line) continue;
        tally.inputs++;
        lines.push(new TextDecoder().decode(line.subarray(0, 120)));
        if (!(await player.write(line))) break;
      }
      const isAnswered = await player.request("state.get", `probe-${probe++}`, ANSWER_WITHIN_MS);
      if (isAnswered) ownAnswers++;
      tally.memory.record("player", (await readMemory([player.pid])).get(player.pid));
      if (!player.isRunning || !isAnswered) {
        if (player.isRunning) {
          tally.hang(`state.get after a batch: no answer in ${ANSWER_WITHIN_MS} ms`);
        } else {
          const status = await player.exited;
          tally.crash(
            `player exited (code ${status.code}) after: ${lines.slice(-2).join(" || ")}; log: ${
              player.stderrTail().slice(-200)
            }`,
          );
        }
        await player.kill();
        ended(player);
        player = await startPlayer(dataDir, tally);
        if (!player) throw new Error("The player did not start again");
      }
    }
  } finally {
    if (player) {
      await player.kill();
      ended(player);
    }
    await dir.remove();
  }
  const { received } = rowFigures(tally);
  tally.note(
    `${tally.inputs} lines sent; ${received} answered by the player (its JSON-RPC answers)`,
  );
  tally.undocumented("-32603 (internal error) from the player", internalErrors);
  for (const sample of samples.slice(0, 3)) tally.example("-32603", sample);
}

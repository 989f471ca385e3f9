/**
 * Probe `ws_fuzz`: messages of the right shape with mutated fields on open
 * sessions (local and authenticated, remote and not), each batch followed by
 * a ping that must be answered within 5 s; malformed frames over raw TCP,
 * after which the server must answer or close; mutated upgrade requests. What the service
 * received is what it answered: the `response` and `error` messages to the fuzzed messages
 * (docs/websocket.md: malformed input gets an answer); none is nothing exercised.
 * @module
 */
import { countReceived, requireFigures, rowFigures } from "./_figures.ts";
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import type { Rng } from "./_prng.ts";
import { exchange } from "./_exchange.ts";
import { statusOfCode, type Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import { WsClient } from "./_ws.ts";
import { malformedFrames, mutatedHandshake, sessionInput } from "./_ws_inputs.ts";

const LIMITS = {
  short: { inputs: 8_000, seconds: 15 },
  full: { inputs: 100_000, seconds: 900 },
};
const BATCH = 200;
/**
 * Bytes sent per batch before waiting for the answers: under the budget of
 * unanswered messages (docs/websocket.md: 4 MiB once authenticated, 64 KiB
 * before), so a close is the service's fault, not a documented limit.
 */
const BATCH_BYTES = { local: 1024 * 1024, remote: 32 * 1024 };

/** The `ws_fuzz` probe. */
export const wsFuzz: Probe = {
  name: "ws_fuzz",
  summary: "fuzzed messages on open sessions, malformed frames, mutated upgrades",
  figures: ["serviceRss", "playerRss", "localServed"],
  run,
};

interface Budget {
  inputs: number;
  deadline: number;
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  tally.requiredInputs = context.mode === "full" ? 100_000 : 0;
  const budget = { inputs: limits.inputs, deadline: Infinity };
  const closes = new Map<string, number>();
  requireFigures(tally, ["received"]);
  await withService(tally, {}, async (run) => {
    // From the service's start, not the probe's: a loaded machine's start took the 15 s.
    budget.deadline = performance.now() + limits.seconds * 1000;
    await Promise.all([
      session(run, tally, context.rng.fork("local"), budget, { isLocal: true, closes }),
      session(run, tally, context.rng.fork("local 2"), budget, { isLocal: true, closes }),
      session(run, tally, context.rng.fork("remote"), budget, { isLocal: false, closes }),
      frames(run, tally, context.rng.fork("frames"), budget),
    ]);
  });
  const { received } = rowFigures(tally);
  tally.note(
    `${tally.inputs} inputs sent; ${received ?? 0} fuzzed messages answered by the service`,
  );
  for (const [why, n] of closes) {
    tally.note(`${n} session(s) closed by the service after well-framed messages (${why})`);
  }
}

/**
 * Whether a message is the service's answer to a fuzzed message: a `response` or an `error`,
 * not to the probe's own `auth` or pings (`probe-N`), nor an event.
 */
export function isFuzzAnswer(text: string): boolean {
  return /^\{"type":"(response|error)"/.test(text) && !/"id":"(auth|probe-\d+)"/.test(text);
}

const isRunning = (tally: Tally, budget: Budget) =>
  tally.inputs < budget.inputs && performance.now() < budget.deadline;

/** Opens a session (authenticated when local) that counts every error answer. */
async function openSession(run: ServiceRun, tally: Tally, isLocal: boolean): Promise<WsClient> {
  const ws = await WsClient.open({
    port: run.ports.ws,
    ...(isLocal ? {} : { localAddress: "127.0.0.3" }),
  });
  ws.ontext = (text) => {
    const code = /^\{"type":"error".*?"code":"([A-Z_]+)"/.exec(text)?.[1];
    if (code) tally.answer(statusOfCode(code), code, "WebSocket message");
    if (isFuzzAnswer(text)) countReceived(tally, 1);
  };
  if (isLocal) {
    const answers: string[] = [];
    const ontext = ws.ontext;
    ws.ontext = (text) => (ontext(text), answers.push(text));
    ws.send({ type: "auth", id: "auth", payload: { deviceName: "reliability fuzz" } });
    await ws.waitUntil(() => answers.some((a) => a.includes('"id":"auth"')), ANSWER_WITHIN_MS);
    ws.ontext = ontext;
  }
  return ws;
}

async function session(
  run: ServiceRun,
  tally: Tally,
  rng: Rng,
  budget: Budget,
  options: { isLocal: boolean; closes: Map<string, number> },
): Promise<void> {
  let ws: WsClient | null = null;
  let probe = 0;
  while (isRunning(tally, budget)) {
    if (!ws || ws.isClosed) {
      try {
        ws = await openSession(run, tally, options.isLocal);
      } catch (error) {
        if (!(await run.revive())) tally.hang(`WebSocket session: ${(error as Error).message}`);
        continue;
      }
    }
    const maxBytes = options.isLocal ? BATCH_BYTES.local : BATCH_BYTES.remote;
    for (let i = 0, bytes = 0; i < BATCH && bytes < maxBytes; i++) {
      const frame = sessionInput(rng, `m${i}`);
      if (!frame) continue;
      tally.inputs++;
      bytes += frame.length;
      ws.write(frame);
    }
    const id = `probe-${probe++}`;
    let isAnswered = false;
    const ontext = ws.ontext;
    ws.ontext = (text) => {
      ontext(text);
      if (text.includes(`"id":"${id}"`)) isAnswered = true;
    };
    ws.send({ type: "ping", id });
    await ws.waitUntil(() => isAnswered || ws!.isClosed, ANSWER_WITHIN_MS);
    ws.ontext = ontext;
    if (ws.isClosed) {
      // docs/websocket.md: malformed input gets an answer and never closes the connection.
      const why = `${options.isLocal ? "local, authenticated" : "remote, unauthenticated"}: code ${
        ws.closeCode ?? "none (TCP close)"
      }`;
      options.closes.set(why, (options.closes.get(why) ?? 0) + 1);
      if (!isAnswered && options.isLocal && !(await run.revive())) {
        tally.served(false);
        tally.example("local session closed", `closed (${why}) instead of answering its ping`);
      }
    } else if (!isAnswered) {
      tally.hang(`WebSocket ping after a batch: no answer in ${ANSWER_WITHIN_MS} ms`);
      ws.destroy();
    }
    if (options.isLocal && isAnswered) tally.served(true);
  }
  ws?.destroy();
}

async function frames(run: ServiceRun, tally: Tally, rng: Rng, budget: Budget): Promise<void> {
  while (isRunning(tally, budget)) {
    const localAddress = rng.chance(0.5) ? "127.0.0.1" : `127.0.1.${rng.range(1, 250)}`;
    if (rng.chance(0.2)) {
      const { kind, text } = mutatedHandshake(run.ports.ws, rng);
      tally.inputs++;
      const answer = await exchange({
        port: run.ports.ws,
        localAddress,
        data: text,
        isHalfClosed: true,
        answerWithinMs: ANSWER_WITHIN_MS,
      });
      if (answer.connectError && await run.revive()) continue;
      if (answer.isTimedOut) tally.hang(`upgrade "${kind}": no answer in ${ANSWER_WITHIN_MS} ms`);
      tally.answer(answer.status, answer.code, `WebSocket upgrade "${kind}"`);
      continue;
    }
    let ws: WsClient;
    try {
      ws = await WsClient.open({ port: run.ports.ws, localAddress });
    } catch (error) {
      if (!(await run.revive())) tally.hang(`WebSocket upgrade: ${(error as Error).message}`);
      continue;
    }
    const { kind, bytes } = malformedFrames(rng);
    tally.inputs++;
    let isAnswered = false;
    ws.ontext = (text) => (isAnswered ||= text.includes('"pong"'));
    ws.write(bytes);
    ws.send({ type: "ping", id: "after" });
    await ws.waitUntil(() => isAnswered || ws.isClosed, ANSWER_WITHIN_MS);
    if (!isAnswered && !ws.isClosed) {
      // A frame that announced more bytes than came is legitimately waited on: end the input.
      ws.end();
      await ws.waitUntil(() => ws.isClosed, ANSWER_WITHIN_MS);
      if (!ws.isClosed) tally.hang(`frames "${kind}": neither answered nor closed after EOF`);
    }
    ws.destroy();
  }
}

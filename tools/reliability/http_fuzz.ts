/**
 * Probe `http_fuzz`: random methods and paths from the real route list
 * (`GET /api/v1/info`), random headers, JSON bodies mutated from valid ones
 * (invalid UTF-8, huge numbers, deep nesting), from 127.0.0.1 with `fetch`
 * and from remote addresses over raw TCP, and malformed HTTP/1.1.
 * @module
 */
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import { describeRequest, fuzzRequest, requestBytes, type Route } from "./_http_inputs.ts";
import { malformedRequest } from "./_http_malformed.ts";
import type { Rng } from "./_prng.ts";
import { exchange } from "./_exchange.ts";
import { countReceived, requireFigures } from "./_figures.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const LIMITS = {
  short: { inputs: 6_000, seconds: 20 },
  full: { inputs: 100_000, seconds: 900 },
};
const WORKERS = 8;

/** The `http_fuzz` probe. */
export const httpFuzz: Probe = {
  name: "http_fuzz",
  summary: "fuzzed requests on every route, local and remote, and malformed HTTP/1.1",
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const limits = LIMITS[context.mode];
  tally.requiredInputs = context.mode === "full" ? 100_000 : 0;
  const counts = { fetchErrors: 0 };
  // What the service received: the local requests it answered (any status) are its own evidence.
  requireFigures(tally, ["received"]);
  await withService(tally, {}, async (run) => {
    // The fuzzing time starts once the service is up: a start slowed by a loaded machine (load
    // 24-35) once took most of a short run's 21 s, which sent 69 inputs of 6,000.
    const deadline = performance.now() + limits.seconds * 1000;
    const info = await (await fetch(`http://127.0.0.1:${run.ports.http}/api/v1/info`)).json();
    const routes = info.endpoints as Route[];
    context.log(`http_fuzz: ${routes.length} routes`);
    await Promise.all(Array.from({ length: WORKERS }, async (_, w) => {
      const rng = context.rng.fork(`worker ${w}`);
      while (tally.inputs < limits.inputs && performance.now() < deadline) {
        const r = rng.next();
        if (r < 0.7) await local(run, tally, routes, rng, counts);
        else if (r < 0.85) await remote(run, tally, routes, rng);
        else await malformed(run, tally, rng);
      }
    }));
    // Accepted fuzzed edits grow the Project: its size is context for the memory figures.
    const summary = await fetch(`http://127.0.0.1:${run.ports.http}/api/v1/projects/demo/summary`)
      .then((r) => r.json()).catch(() => null);
    if (summary?.counts) {
      tally.note(`the demo Project at the end: ${JSON.stringify(summary.counts)}`);
    }
  });
  if (counts.fetchErrors > 0) {
    tally.note(`${counts.fetchErrors} local request(s) ended by a connection error`);
  }
}

async function local(
  run: ServiceRun,
  tally: Tally,
  routes: Route[],
  rng: Rng,
  counts: { fetchErrors: number },
): Promise<void> {
  const input = fuzzRequest(routes, rng);
  if (!input) return;
  tally.inputs++;
  try {
    const res = await fetch(`http://127.0.0.1:${run.ports.http}${input.path}`, {
      method: input.method,
      headers: input.headers,
      ...(input.body ? { body: input.body } : {}),
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    const text = await res.text();
    const code = /"code"\s*:\s*"([A-Z_]+)"/.exec(text)?.[1] ?? null;
    tally.answer(res.status, code, input.where, () => describeRequest(input));
    countReceived(tally, 1);
  } catch (error) {
    const e = error as Error;
    if (e.name === "TimeoutError") {
      tally.hang(
        `${input.where} (${input.path.slice(0, 60)}): no answer in ${ANSWER_WITHIN_MS} ms`,
      );
    } else if (/invalid url|header|method/i.test(e.message) && run.service.isRunning) {
      tally.inputs--; // refused by fetch itself: it never reached the service
    } else if (await run.revive()) {
      tally.example("crash input", `${input.where} ${input.path.slice(0, 60)}`);
    } else {
      counts.fetchErrors++;
      tally.example("connection error", `${input.where}: ${e.message.slice(0, 120)}`);
    }
  }
}

async function remote(run: ServiceRun, tally: Tally, routes: Route[], rng: Rng): Promise<void> {
  const input = fuzzRequest(routes, rng);
  if (!input) return;
  tally.inputs++;
  const port = run.ports.http;
  const answer = await exchange({
    port,
    localAddress: `127.0.0.${rng.range(2, 250)}`,
    data: requestBytes(input, `127.0.0.1:${port}`),
    answerWithinMs: ANSWER_WITHIN_MS,
  });
  if (answer.connectError && await run.revive()) return;
  if (answer.isTimedOut) tally.hang(`remote ${input.where}: no answer in ${ANSWER_WITHIN_MS} ms`);
  tally.answer(answer.status, answer.code, `remote ${input.where}`, () => describeRequest(input));
}

async function malformed(run: ServiceRun, tally: Tally, rng: Rng): Promise<void> {
  const port = run.ports.http;
  const { kind, bytes } = malformedRequest(`127.0.0.1:${port}`, rng);
  tally.inputs++;
  const answer = await exchange({
    port,
    ...(rng.chance(0.5) ? { localAddress: `127.0.0.${rng.range(2, 250)}` } : {}),
    data: bytes,
    isHalfClosed: true,
    answerWithinMs: ANSWER_WITHIN_MS,
  });
  if (answer.connectError && await run.revive()) return;
  if (answer.isTimedOut) {
    tally.hang(`malformed "${kind}": neither answered nor closed ${ANSWER_WITHIN_MS} ms after EOF`);
  }
  tally.answer(
    answer.status,
    answer.code,
    `malformed "${kind}"`,
    () => JSON.stringify(new TextDecoder().decode(bytes.subarray(0, 160))),
  );
}

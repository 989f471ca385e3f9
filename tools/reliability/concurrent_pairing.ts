/**
 * Probe `concurrent_pairing`: 40 pairing flows at once, each a local
 * `POST /api/v1/pair/code` then a remote `POST /api/v1/pair` from its own
 * address. Every token issued must work, now and after a clean restart of
 * the service (the device registry is on disk).
 * @module
 */
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import { exchange, requestText } from "./_exchange.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const FLOWS = 40;
/** Rounds of 40 concurrent flows: the race they probe does not lose a token every time. */
const ROUNDS = { short: 1, full: 5 };

/** The `concurrent_pairing` probe. */
export const concurrentPairing: Probe = {
  name: "concurrent_pairing",
  summary: `${FLOWS} pairing flows at once; every token issued must work, also after a restart`,
  run,
};

function bodyOf(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
  } catch {
    return null;
  }
}

/** A remote request from `address`; the status and JSON body. */
async function remote(
  run: ServiceRun,
  address: string,
  method: string,
  path: string,
  options: { body?: string; token?: string } = {},
) {
  const answer = await exchange({
    port: run.ports.http,
    localAddress: address,
    data: requestText(method, path, {
      host: `127.0.0.1:${run.ports.http}`,
      ...(options.token ? { headers: { authorization: `Bearer ${options.token}` } } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
    }),
    answerWithinMs: ANSWER_WITHIN_MS,
  });
  return {
    status: answer.status,
    code: answer.code,
    body: bodyOf(answer.text),
    isTimedOut: answer.isTimedOut,
  };
}

/** A device that paired: its token and the address it paired from. */
interface Paired {
  token: string;
  address: string;
}

async function flow(run: ServiceRun, tally: Tally, address: string): Promise<Paired | null> {
  const code = await fetch(`http://127.0.0.1:${run.ports.http}/api/v1/pair/code`, {
    method: "POST",
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  }).then((r) => r.json()).catch((e) => ({ error: String(e) }));
  if (typeof code.otp !== "string") {
    tally.example("code", JSON.stringify(code).slice(0, 200));
    return null;
  }
  const paired = await remote(run, address, "POST", "/api/v1/pair", {
    body: JSON.stringify({ otp: code.otp, deviceName: `Reliability ${address}` }),
  });
  if (paired.isTimedOut) tally.hang(`POST /api/v1/pair: no answer in ${ANSWER_WITHIN_MS} ms`);
  tally.answer(paired.status, paired.code, "POST /api/v1/pair");
  if (paired.status !== 200 || typeof paired.body?.token !== "string") {
    tally.example("pair", `${paired.status} ${JSON.stringify(paired.body).slice(0, 200)}`);
    return null;
  }
  return { token: paired.body.token, address };
}

async function working(run: ServiceRun, tally: Tally, devices: Paired[]): Promise<boolean[]> {
  return await Promise.all(devices.map(async ({ token, address }) => {
    const a = await remote(run, address, "GET", "/api/v1/projects", { token });
    if (a.isTimedOut) {
      tally.hang(`GET /api/v1/projects with a token: no answer in ${ANSWER_WITHIN_MS} ms`);
    }
    return a.status === 200;
  }));
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const rounds = ROUNDS[context.mode];
  await withService(tally, {}, async (run) => {
    const devices: Paired[] = [];
    for (let round = 0; round < rounds; round++) {
      const flows = Array.from(
        { length: FLOWS },
        (_, i) => flow(run, tally, `127.0.${3 + round}.${10 + i}`),
      );
      tally.inputs += FLOWS;
      devices.push(...(await Promise.all(flows)).filter((d): d is Paired => d !== null));
    }
    tally.acked = devices.length;
    const now = await working(run, tally, devices);
    await run.restart();
    const after = await working(run, tally, devices);
    tally.lost = devices.filter((_, i) => !now[i] || !after[i]).length;
    tally.note(
      `${devices.length} of ${tally.inputs} flows (${rounds} round(s) of ${FLOWS} at once) got a token; working at once: ${
        now.filter(Boolean).length
      }, after a restart: ${after.filter(Boolean).length}`,
    );
  });
}

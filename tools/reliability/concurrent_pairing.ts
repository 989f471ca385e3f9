/**
 * Probe `concurrent_pairing`: at once, 40 pairing flows (a local
 * `POST /api/v1/pair/code` with the operator credential, then a remote
 * `POST /api/v1/pair` from its own address) and 40 local WebSocket approvals
 * (`{"type":"auth","payload":{}}` from 127.0.0.1, each answered with a token
 * of its own); three rounds (five in a full run), the service restarted
 * after each. The service runs with `--localhost-auth-exempt false`, so a
 * token sent from 127.0.0.1 is verified: every token issued must work at
 * once, and at the end, after all the restarts.
 * @module
 */
import { ANSWER_WITHIN_MS, type ServiceRun, withService } from "./_harness.ts";
import { exchange, requestText } from "./_exchange.ts";
import { WsClient } from "./_ws.ts";
import { readOperatorToken } from "../../server/auth/operator.ts";
import type { Tally } from "./_tally.ts";
import type { Probe, ProbeContext } from "./_types.ts";

const FLOWS = 40;
const APPROVALS = 40;
/** Rounds of 40 pairings and 40 approvals at once, the service restarted after each. */
const ROUNDS = { short: 3, full: 5 };
/** Local requests must show their token (the point: it is verified). */
const SETTINGS = ["--localhost-auth-exempt", "false"];

/** The `concurrent_pairing` probe. */
export const concurrentPairing: Probe = {
  name: "concurrent_pairing",
  summary:
    `${FLOWS} pairings and ${APPROVALS} local approvals at once, rounds with restarts; every token must work`,
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
  options: { body?: string } = {},
) {
  const answer = await exchange({
    port: run.ports.http,
    localAddress: address,
    data: requestText(method, path, {
      host: `127.0.0.1:${run.ports.http}`,
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

/** A token issued, and how. */
interface Issued {
  token: string;
  how: "pairing" | "approval";
  round: number;
}

async function flow(
  run: ServiceRun,
  tally: Tally,
  address: string,
  operator: string,
): Promise<string | null> {
  const code = await fetch(`http://127.0.0.1:${run.ports.http}/api/v1/pair/code`, {
    method: "POST",
    headers: { authorization: `Bearer ${operator}` },
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
  return paired.body.token;
}

/** A local WebSocket client that authenticates with nothing: approved, it gets a token. */
async function approval(run: ServiceRun, tally: Tally): Promise<string | null> {
  let ws: WsClient;
  try {
    ws = await WsClient.open({ port: run.ports.ws, timeoutMs: ANSWER_WITHIN_MS });
  } catch (error) {
    tally.example("approval", `WebSocket: ${(error as Error).message}`);
    return null;
  }
  let answer: { type?: string; data?: { token?: unknown } } | null = null;
  ws.ontext = (text) => {
    try {
      const message = JSON.parse(text);
      if (message.id === "auth") answer = message;
    } catch {
      tally.example("approval", `not JSON: ${text.slice(0, 200)}`);
    }
  };
  ws.send({ type: "auth", id: "auth", payload: {} });
  const isAnswered = await ws.waitUntil(() => answer !== null || ws.isClosed, ANSWER_WITHIN_MS);
  ws.destroy();
  if (!isAnswered) tally.hang(`WebSocket auth {}: no answer in ${ANSWER_WITHIN_MS} ms`);
  const token = (answer as { data?: { token?: unknown } } | null)?.data?.token;
  if (typeof token === "string") return token;
  tally.example("approval", `${JSON.stringify(answer).slice(0, 200)} (closed: ${ws.closeCode})`);
  return null;
}

/** Whether each token is let in, from 127.0.0.1 (verified: not exempt). */
async function working(run: ServiceRun, tally: Tally, tokens: Issued[]): Promise<boolean[]> {
  const get = (token: string | null) =>
    fetch(`http://127.0.0.1:${run.ports.http}/api/v1/projects`, {
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    }).then(async (r) => (await r.body?.cancel(), r.status)).catch((e: Error) => {
      if (e.name === "TimeoutError") {
        tally.hang(`GET /api/v1/projects: no answer in ${ANSWER_WITHIN_MS} ms`);
      }
      return null;
    });
  // The control: without a token, a local request is refused, so a 200 below means a good token.
  const control = await get(null);
  if (control !== 401) {
    throw new Error(`A local request without a token was answered ${control}, not 401`);
  }
  return await Promise.all(tokens.map(async ({ token }) => (await get(token)) === 200));
}

async function run(context: ProbeContext): Promise<void> {
  const { tally } = context;
  const rounds = ROUNDS[context.mode];
  await withService(tally, { args: SETTINGS }, async (run) => {
    const issued: Issued[] = [];
    const failedAtOnce = new Set<string>();
    for (let round = 0; round < rounds; round++) {
      const operator = await readOperatorToken(run.dataDir);
      if (operator === null) throw new Error("No operator credential in the data dir");
      const pairings = Array.from(
        { length: FLOWS },
        (_, i) => flow(run, tally, `127.0.${3 + round}.${10 + i}`, operator),
      );
      const approvals = Array.from({ length: APPROVALS }, () => approval(run, tally));
      tally.inputs += FLOWS + APPROVALS;
      const fresh: Issued[] = [
        ...(await Promise.all(pairings)).map((token) => ({
          token,
          how: "pairing" as const,
          round,
        })),
        ...(await Promise.all(approvals)).map((token) => ({
          token,
          how: "approval" as const,
          round,
        })),
      ].filter((t): t is Issued => t.token !== null);
      const now = await working(run, tally, fresh);
      fresh.forEach((t, i) => !now[i] && failedAtOnce.add(t.token));
      issued.push(...fresh);
      await run.restart();
    }
    tally.acked = issued.length;
    const atEnd = await working(run, tally, issued);
    const lost = issued.filter((t, i) => failedAtOnce.has(t.token) || !atEnd[i]);
    tally.lost = lost.length;
    const count = (how: Issued["how"]) => issued.filter((t) => t.how === how).length;
    tally.note(
      `${rounds} round(s) of ${FLOWS} pairings and ${APPROVALS} approvals at once, a restart after each: ${
        count("pairing")
      } pairing and ${
        count("approval")
      } approval tokens of ${tally.inputs}; not working at once: ${failedAtOnce.size}, at the end: ${
        atEnd.filter((ok) => !ok).length
      }`,
    );
    if (lost.length > 0) {
      tally.example(
        "lost",
        lost.slice(0, 5).map((t) => `${t.how} of round ${t.round + 1}`).join(", "),
      );
    }
  });
}

/**
 * What the media probes (`image_bombs`, `wav_bombs`) share: uploads and
 * pictures asked from 127.0.0.1 (local) or 127.0.0.2 (a paired remote
 * device), a local client timing its requests throughout (its p99 goes into
 * the notes), and a count of player restarts.
 * @module
 */
import http from "node:http";
import { ANSWER_WITHIN_MS, type ServiceRun } from "./_harness.ts";
import type { Tally } from "./_tally.ts";

/** An answer: status, `error.code` and the headers that matter here. */
export interface MediaAnswer {
  status: number | null;
  code: string | null;
  /** `X-Cueport-Origin` of a picture (`image`, `card`...). */
  origin: string | null;
  ms: number;
  /** The client gave up first (its own deadline), or the request failed. */
  isAbandoned: boolean;
}

/**
 * One request from `localAddress` on a fresh connection; `abandonAfterMs`
 * destroys it unanswered (a client that went away). Never throws.
 */
export function request(port: number, options: {
  method?: string;
  path: string;
  localAddress?: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  abandonAfterMs?: number;
}): Promise<MediaAnswer> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let isDone = false;
    const done = (answer: Omit<MediaAnswer, "ms">) => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      resolve({ ...answer, ms: Math.round(performance.now() - t0) });
    };
    const failed = { status: null, code: null, origin: null, isAbandoned: true };
    const req = http.request({
      host: "127.0.0.1",
      port,
      method: options.method ?? "GET",
      path: options.path,
      localAddress: options.localAddress ?? "127.0.0.1",
      headers: { connection: "close", ...options.headers },
      agent: false,
    }, (res) => {
      const chunks: Uint8Array[] = [];
      res.on("data", (c: Uint8Array) => chunks.push(c));
      res.on("error", () => done(failed));
      res.on("end", () => {
        let code: string | null = null;
        if ((res.headers["content-type"] ?? "").includes("json")) {
          try {
            code = JSON.parse(new TextDecoder().decode(Buffer.concat(chunks))).error?.code ?? null;
          } catch {
            code = null;
          }
        }
        const origin = res.headers["x-cueport-origin"];
        done({
          status: res.statusCode ?? null,
          code,
          origin: typeof origin === "string" ? origin : null,
          isAbandoned: false,
        });
      });
    });
    const limit = options.abandonAfterMs ?? ANSWER_WITHIN_MS * 4;
    const timer = setTimeout(() => {
      req.destroy();
      done(failed);
    }, limit);
    req.on("error", () => done(failed));
    req.end(options.body);
  });
}

/** Uploads `bytes` as `name` from 127.0.0.1; returns the answer and the new file's id, if any. */
export async function upload(
  port: number,
  name: string,
  bytes: Uint8Array,
): Promise<{ answer: MediaAnswer; fileId: string | null }> {
  const t0 = performance.now();
  const res = await fetch(
    `http://127.0.0.1:${port}/api/v1/files/upload?name=${encodeURIComponent(name)}`,
    {
      method: "POST",
      body: bytes as Uint8Array<ArrayBuffer>,
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS * 4),
    },
  ).catch(() => null);
  const ms = Math.round(performance.now() - t0);
  if (!res) {
    return {
      answer: { status: null, code: null, origin: null, ms, isAbandoned: true },
      fileId: null,
    };
  }
  const body = await res.json().catch(() => null);
  return {
    answer: {
      status: res.status,
      code: body?.error?.code ?? null,
      origin: null,
      ms,
      isAbandoned: false,
    },
    fileId: body?.edits?.[0]?.created?.fileId ?? null,
  };
}

/** Pairs a remote device (127.0.0.2) with `scopes`; returns its Authorization header. */
export async function pairRemote(
  port: number,
  scopes: readonly string[],
): Promise<Record<string, string>> {
  const code = await fetch(`http://127.0.0.1:${port}/api/v1/pair/code`, {
    method: "POST",
    body: "{}",
    headers: { "content-type": "application/json" },
  }).then((r) => r.json());
  const token = await new Promise<string>((resolve, reject) => {
    const req = http.request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/api/v1/pair",
      localAddress: "127.0.0.2",
      headers: { "content-type": "application/json" },
      agent: false,
    }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => {
        const t = JSON.parse(text).token;
        if (typeof t === "string") resolve(t);
        else reject(new Error(`Pairing failed: ${text.slice(0, 200)}`));
      });
    });
    req.on("error", reject);
    req.end(JSON.stringify({ otp: code.otp, scopes }));
  });
  return { authorization: `Bearer ${token}` };
}

/**
 * A local client that sends one request every `everyMs` for as long as it
 * runs, timing each: a request not answered within 5 s is a hang. `stop()`
 * returns the latencies' p99.
 */
export class LocalTimer {
  #latencies: number[] = [];
  #isRunning = true;
  #loop: Promise<void>;

  /** Starts timing `send` (one local request). */
  constructor(
    tally: Tally,
    what: string,
    send: () => Promise<MediaAnswer>,
    everyMs = 100,
  ) {
    this.#loop = (async () => {
      while (this.#isRunning) {
        const started = performance.now();
        const answer = await send();
        if (answer.status === null || answer.ms >= ANSWER_WITHIN_MS) {
          tally.hang(`${what} from 127.0.0.1: ${answer.ms} ms`);
        } else tally.answer(answer.status, answer.code, what);
        this.#latencies.push(answer.ms);
        tally.localMs.push(answer.ms);
        const wait = everyMs - (performance.now() - started);
        if (wait > 0 && this.#isRunning) await new Promise((r) => setTimeout(r, wait));
      }
    })();
  }

  /** Stops; resolves with the p99 latency in ms (and how many were timed). */
  async stop(): Promise<{ p99: number; count: number }> {
    this.#isRunning = false;
    await this.#loop;
    const sorted = [...this.#latencies].sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
    return { p99, count: sorted.length };
  }
}

/** Counts player restarts: every change of the player's pid while it runs. */
export class PlayerWatch {
  #isRunning = true;
  #restarts = 0;
  #loop: Promise<void>;

  /** Starts watching the service's player every `everyMs`. */
  constructor(run: ServiceRun, everyMs = 250) {
    this.#loop = (async () => {
      let last: number | null = null;
      while (this.#isRunning) {
        const pid = await run.playerPid();
        if (pid !== null && last !== null && pid !== last) this.#restarts++;
        if (pid !== null) last = pid;
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
  }

  /** Stops; resolves with the restarts seen. */
  async stop(): Promise<number> {
    this.#isRunning = false;
    await this.#loop;
    return this.#restarts;
  }
}

/** Counts answers by `status code origin` for a note: `12x 200 card, 3x 429 RATE_LIMITED`. */
export function summary(answers: readonly MediaAnswer[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const key = a.isAbandoned
      ? "abandoned"
      : [a.status, a.code, a.origin].filter((v) => v !== null).join(" ");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${n}x ${key}`).join(", ");
}

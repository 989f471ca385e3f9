/**
 * Actions at a steady rate from 127.0.0.1 (`SET_CONTROL` of Control A, as a
 * fader moved live), for the `load` probe: each one not answered within 5 s is
 * a hang, an undocumented 5xx is counted; the round trips go into the notes.
 * @module
 */
import { ANSWER_WITHIN_MS } from "./_harness.ts";
import type { Tally } from "./_tally.ts";

/** A steady stream of local actions. */
export class ActionLoad {
  /** Actions sent. */
  sent = 0;
  /** Actions answered 200. */
  answeredOk = 0;
  /** Other answers, by `status code` (`no answer` for none within 5 s). */
  readonly failed: Map<string, number> = new Map();
  /** Round trips of the answered ones, ms. */
  readonly ms: number[] = [];
  #isRunning = true;
  #inFlight = new Set<Promise<void>>();
  #loop: Promise<void>;

  /** Sends `perSecond` actions a second to `port`, at most `maxInFlight` unanswered at once. */
  constructor(port: number, tally: Tally, perSecond = 50, maxInFlight = 50) {
    const everyMs = 1000 / perSecond;
    this.#loop = (async () => {
      const start = performance.now();
      for (let n = 0; this.#isRunning; n++) {
        if (this.#inFlight.size < maxInFlight) {
          const sending = this.#send(port, tally, (n % 100) / 100);
          this.#inFlight.add(sending);
          void sending.finally(() => this.#inFlight.delete(sending));
        }
        const wait = start + (n + 1) * everyMs - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        else if (this.#inFlight.size >= maxInFlight) await Promise.race(this.#inFlight);
      }
    })();
  }

  /** Sends no more; resolves once every action sent has its answer (or none within 5 s). */
  async stop(): Promise<void> {
    this.#isRunning = false;
    await this.#loop;
    await Promise.all(this.#inFlight);
  }

  async #send(port: number, tally: Tally, value: number): Promise<void> {
    this.sent++;
    tally.inputs++;
    const started = performance.now();
    let outcome: string;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/action`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "SET_CONTROL", params: ["A", value] }),
        signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      });
      const body = await res.json().catch(() => null);
      this.ms.push(performance.now() - started);
      const code = body?.error?.code ?? null;
      tally.answer(res.status, code, "POST /api/v1/action SET_CONTROL");
      if (res.status === 200) {
        this.answeredOk++;
        return;
      }
      outcome = `${res.status} ${code}`;
    } catch (error) {
      outcome = (error as Error).name === "TimeoutError" ? "no answer" : "network error";
      if (outcome === "no answer") {
        tally.hang(
          `POST /api/v1/action SET_CONTROL from 127.0.0.1: no answer in ${ANSWER_WITHIN_MS} ms`,
        );
      }
    }
    this.failed.set(outcome, (this.failed.get(outcome) ?? 0) + 1);
  }
}

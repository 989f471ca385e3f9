/**
 * The probes' local client (an operator's `curl` on the show machine): exchanges run and timed
 * on a thread of their own (`_local_worker.ts`), never on the probe's thread that floods the
 * service. A probe that sends 4,600 datagrams a second beside `stress-ng` gets about as much
 * CPU as its sending takes, so a request timed on that thread measured its own wait for a turn
 * (8 s, issue 42), not the service's answer; on its own thread the time is the connect, the
 * service's answer and the scheduling of one light thread, as an operator's client sees it.
 * @module
 */
import { type ExchangeOptions, requestText } from "./_exchange.ts";
import type { LocalJob, LocalOutcome } from "./_local_worker.ts";

export type { LocalOutcome } from "./_local_worker.ts";

/** A thread that runs exchanges for the probe; `close` it when done. */
export class LocalClient {
  #worker: Worker;
  #nextId = 1;
  #waiting = new Map<number, (outcome: LocalOutcome) => void>();

  /** Starts the thread. */
  constructor() {
    this.#worker = new Worker(new URL("./_local_worker.ts", import.meta.url).href, {
      type: "module",
    });
    this.#worker.onmessage = (event: MessageEvent<LocalOutcome>) => {
      const resolve = this.#waiting.get(event.data.id);
      this.#waiting.delete(event.data.id);
      resolve?.(event.data);
    };
  }

  /**
   * Runs one exchange on the thread: its outcome, with `ms` timed there.
   * @example
   * ```ts
   * const client = new LocalClient();
   * const { status, ms } = await client.exchange({ port, data: "GET /health HTTP/1.1\r\n\r\n", answerWithinMs: 5000 });
   * client.close();
   * ```
   */
  exchange(options: ExchangeOptions): Promise<LocalOutcome> {
    const id = this.#nextId++;
    const { promise, resolve } = Promise.withResolvers<LocalOutcome>();
    this.#waiting.set(id, resolve);
    const job: LocalJob = { id, options };
    this.#worker.postMessage(job);
    return promise;
  }

  /**
   * A local request from 127.0.0.1 on a fresh connection, JSON `body` if given: whether it was
   * answered `status` (default 200) within 5 s, and its time on the thread (for `timeLocal`).
   */
  async request(
    port: number,
    method: string,
    path: string,
    options: { body?: unknown; status?: number } = {},
  ): Promise<{ isOk: boolean; ms: number }> {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const outcome = await this.exchange({
      port,
      data: requestText(method, path, {
        host: `127.0.0.1:${port}`,
        ...(body !== undefined ? { body, headers: { "content-type": "application/json" } } : {}),
      }),
      answerWithinMs: 5000,
      timeoutMs: 5000,
    });
    return { isOk: outcome.status === (options.status ?? 200), ms: outcome.ms };
  }

  /** Ends the thread; exchanges still under way are answered as timed out. */
  close(): void {
    this.#worker.terminate();
    for (const [id, resolve] of this.#waiting) {
      resolve({
        id,
        ms: Infinity,
        status: null,
        code: null,
        text: "",
        isTimedOut: true,
        connectError: null,
      });
    }
    this.#waiting.clear();
  }
}

/**
 * The thread of `_local_client.ts`: runs each exchange it is sent and posts back its outcome
 * and how long it took, timed here, on a thread that does nothing else. So a probe whose own
 * thread is busy flooding (or starved beside `stress-ng`) still measures the service, not its
 * own scheduling delay.
 * @module
 */
/// <reference lib="deno.worker" />
import { exchange, type ExchangeOptions } from "./_exchange.ts";

/** One exchange to run: its id, and what `exchange` takes. */
export interface LocalJob {
  id: number;
  options: ExchangeOptions;
}

/** Its outcome, timed on this thread. */
export interface LocalOutcome {
  id: number;
  /** From the connect to the whole answer (or the close, or the bound), ms. */
  ms: number;
  status: number | null;
  code: string | null;
  text: string;
  isTimedOut: boolean;
  connectError: string | null;
}

self.onmessage = async (event: MessageEvent<LocalJob>) => {
  const { id, options } = event.data;
  const started = performance.now();
  const answer = await exchange(options);
  const outcome: LocalOutcome = {
    id,
    ms: performance.now() - started,
    status: answer.status,
    code: answer.code,
    text: answer.text,
    isTimedOut: answer.isTimedOut,
    connectError: answer.connectError,
  };
  self.postMessage(outcome);
};

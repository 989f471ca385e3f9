/**
 * Requests to the output page (a picture, a sound level, the end of a
 * recording) and their answers by id. Each ends: answered, failed when the
 * browser and its page showed no progress for `REQUEST_NO_PROGRESS_MS` (a
 * slow page that keeps reporting is waited for), or rejected when the output
 * closes. A request waiting while the browser is started again is sent again
 * to the new page.
 * @module
 */
import type { ToPage } from "../../protocol/output.ts";

/**
 * How long a request waits without any progress of the browser or its page, ms (a page
 * that reports every second, or a browser that is starting, is waited for however long).
 */
export const REQUEST_NO_PROGRESS_MS = 30_000;

/** Options of `PageRequests`: where progress is read, and for tests the clock and timers. */
export interface PageRequestsOptions {
  /** When the browser or its page last showed progress (`now()`'s time). */
  lastProgressAt(): number;
  now?: () => number;
  setTimeout?: (fn: () => void, ms: number) => number;
  clearTimeout?: (id: number) => void;
}

interface Pending {
  message: ToPage;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** The requests waiting for the page. */
export class PageRequests {
  readonly #send: (message: ToPage) => void;
  readonly #options: Required<PageRequestsOptions>;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  /** `send` delivers a message to the page now, or drops it when none is connected. */
  constructor(send: (message: ToPage) => void, options: PageRequestsOptions) {
    this.#send = send;
    this.#options = {
      now: () => performance.now(),
      setTimeout: (fn, ms) => setTimeout(fn, ms) as unknown as number,
      clearTimeout: (id) => clearTimeout(id),
      ...options,
    };
  }

  /** Sends the request `build` makes with a fresh id; resolves with the page's answer. */
  request<T>(build: (id: number) => ToPage): Promise<T> {
    const id = this.#nextId++;
    const message = build(id);
    const { now, lastProgressAt, setTimeout, clearTimeout } = this.#options;
    return new Promise<T>((resolve, reject) => {
      let timer = 0;
      // Looks again when the bound would be over: the page's progress since then waits on.
      const watch = () => {
        const silentMs = now() - lastProgressAt();
        if (silentMs < REQUEST_NO_PROGRESS_MS) {
          timer = setTimeout(watch, REQUEST_NO_PROGRESS_MS - silentMs);
          return;
        }
        this.#pending.delete(id);
        reject(
          new Error(
            `The output page did not answer "${message.type}": no sign of it for ${
              Math.round(silentMs / 1000)
            } s`,
          ),
        );
      };
      timer = setTimeout(watch, REQUEST_NO_PROGRESS_MS);
      this.#pending.set(id, {
        message,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.#send(message);
    });
  }

  /** The page answered request `id` (unknown ids: a page that answered too late). */
  settle(id: number, value: unknown): void {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    pending?.resolve(value);
  }

  /** A new page connected: it gets every request still waiting. */
  resend(): void {
    for (const pending of this.#pending.values()) this.#send(pending.message);
  }

  /** Fails every waiting request with `error`. */
  rejectAll(error: Error): void {
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}

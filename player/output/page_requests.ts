/**
 * Requests to the output page (a picture, a sound level, the end of a
 * recording) and their answers by id. Each ends: answered, timed out, or
 * rejected when the output closes. A request waiting while the browser is
 * started again is sent again to the new page.
 * @module
 */
import type { ToPage } from "../../protocol/output.ts";

/** How long a request to the page may take, ms (a relaunch of the browser included). */
export const REQUEST_TIMEOUT_MS = 20_000;

interface Pending {
  message: ToPage;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** The requests waiting for the page. */
export class PageRequests {
  readonly #send: (message: ToPage) => void;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  /** `send` delivers a message to the page now, or drops it when none is connected. */
  constructor(send: (message: ToPage) => void) {
    this.#send = send;
  }

  /** Sends the request `build` makes with a fresh id; resolves with the page's answer. */
  request<T>(build: (id: number) => ToPage): Promise<T> {
    const id = this.#nextId++;
    const message = build(id);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`The output page did not answer "${message.type}" within 20 s`));
      }, REQUEST_TIMEOUT_MS);
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

/**
 * The answers one WebSocket connection owes (`SocketClient`): sent in the
 * order of its messages, each once its socket has room, and counted while
 * owed (its message's length plus a small answer's size).
 * @module
 */

/** What the queue asks of its connection. */
export interface AnswerQueueHooks {
  /** Whether the socket has room for an answer now. */
  hasRoom(): boolean;
  /** An answer waits for room: the connection's sweep is to `wake` the queue once it has. */
  onWait(): void;
}

/** The answers owed, in order. */
export class AnswerQueue {
  #hooks: AnswerQueueHooks;
  /** The last answer queued. */
  #tail: Promise<void> = Promise.resolve();
  #owed = 0;
  /** The answer waiting for room. */
  #waiter: (() => void) | null = null;

  /** A queue whose answers wait while `hooks.hasRoom()` says no. */
  constructor(hooks: AnswerQueueHooks) {
    this.#hooks = hooks;
  }

  /** What the answers owed and not yet sent are counted as. */
  get owedBytes(): number {
    return this.#owed;
  }

  /** Whether an answer waits for room. */
  get isWaiting(): boolean {
    return this.#waiter !== null;
  }

  /**
   * Queues an answer owed `cost` behind the earlier ones: once they are out
   * and there is room, `answer` runs; it calls `paid()` when it sends (or
   * drops) its answer, which then no longer counts.
   */
  push(cost: number, answer: (paid: () => void) => void | Promise<void>): void {
    this.#owed += cost;
    this.#tail = this.#tail.then(async () => {
      if (!this.#hooks.hasRoom()) await this.#room();
      const done = answer(() => (this.#owed -= cost));
      if (done instanceof Promise) await done;
    });
  }

  /** Lets the waiting answer go: the socket has room, or the connection closes. */
  wake(): void {
    const resolve = this.#waiter;
    this.#waiter = null;
    resolve?.();
  }

  /** Resolves once `wake` is called. */
  #room(): Promise<void> {
    this.#hooks.onWait();
    return new Promise((resolve) => (this.#waiter = resolve));
  }
}

/**
 * The messages of one WebSocket connection that came while it was over its
 * budget (`SocketClient`): kept unread, in order, until it has room.
 * @module
 */

/** One message kept unread: its data and what its answer is owed. */
export interface HeldMessage {
  data: unknown;
  cost: number;
}

/** A queue of held messages and the bytes they are counted as. */
export class HeldMessages {
  #items: Array<HeldMessage | undefined> = [];
  /** The next to read. */
  #at = 0;
  #bytes = 0;

  /** What the held messages are counted as: the sum of their costs. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether none is held. */
  get isEmpty(): boolean {
    return this.#at === this.#items.length;
  }

  /** Holds a message behind the others. */
  push(data: unknown, cost: number): void {
    this.#items.push({ data, cost });
    this.#bytes += cost;
  }

  /** Takes the oldest (call only when not empty). */
  shift(): HeldMessage {
    const item = this.#items[this.#at]!;
    this.#items[this.#at++] = undefined;
    this.#bytes -= item.cost;
    if (this.#at === this.#items.length) this.clear();
    return item;
  }

  /** Drops them all. */
  clear(): void {
    this.#items = [];
    this.#at = 0;
    this.#bytes = 0;
  }
}

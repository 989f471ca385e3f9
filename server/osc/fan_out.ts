/**
 * The fan-out of state changes to OSC subscribers: each batch of the core's
 * event bus becomes typed feedback (`feedback.ts`), encoded once and sent to
 * every subscriber whose filter it passes. A subscriber whose address is over
 * its byte budget misses feedback and is marked behind; once its budget holds
 * all its current values, it is sent them (a resync), so it never keeps a
 * stale value.
 * @module
 */
import type { ReadModel, UpdateBatch } from "../core/mod.ts";
import { batchFeedback, currentFeedback, type Feedback } from "./feedback.ts";
import type { Outbox } from "./outbox.ts";
import { encodeMessage } from "./replies.ts";
import { passes, type Subscriber, type Subscriptions } from "./subscriptions.ts";

/** How often subscribers behind their address's byte budget are looked at. */
const RESYNC_MS = 250;

/** Options of the fan-out. */
export interface FanOutOptions {
  /** What the feedback is read from. */
  model: ReadModel;
  subscriptions: Subscriptions;
  /** What sends within each address's budget. */
  outbox: Outbox;
}

/** Sends the subscribers their feedback, and resyncs those that fell behind. */
export class FanOut {
  #model: ReadModel;
  #subscriptions: Subscriptions;
  #outbox: Outbox;
  /** Subscribers that missed feedback for their address's budget: resynced once it has room. */
  #behind = new Set<Subscriber>();
  #resyncTimer: ReturnType<typeof setInterval> | null = null;

  /** Builds the fan-out; it sends nothing until given a batch or a subscriber. */
  constructor(options: FanOutOptions) {
    this.#model = options.model;
    this.#subscriptions = options.subscriptions;
    this.#outbox = options.outbox;
  }

  /** Sends a batch of the event bus to the live subscribers (all current values for a `full`). */
  batch(batch: UpdateBatch): void {
    const subscribers = this.#subscriptions.live();
    if (subscribers.length === 0) return;
    const feedback = batchFeedback(this.#model, batch.updates);
    if (feedback === null) {
      for (const s of subscribers) {
        this.#behind.delete(s);
        this.current(s);
      }
      return;
    }
    // Each message is encoded once, whatever the number of subscribers.
    const encoded = feedback.map((message) => ({
      message,
      bytes: encodeMessage(message.address, message.args),
    }));
    const active = this.#model.activeProjectId;
    for (const s of subscribers) {
      if (this.#behind.has(s)) continue; // its resync brings it up to date
      for (const { message, bytes } of encoded) {
        if (passes(s.filter, message, active)) this.#feed(s, bytes);
      }
    }
  }

  /** Sends a subscriber its current values (after `/subscribe`, or on a `full` update). */
  current(subscriber: Subscriber): void {
    this.#send(subscriber, currentFeedback(this.#model, subscriber.filter.projectId));
  }

  /** Stops the resync timer. */
  close(): void {
    if (this.#resyncTimer !== null) clearInterval(this.#resyncTimer);
    this.#resyncTimer = null;
  }

  #send(subscriber: Subscriber, feedback: Feedback[]): void {
    const active = this.#model.activeProjectId;
    for (const message of feedback) {
      if (!passes(subscriber.filter, message, active)) continue;
      this.#feed(subscriber, encodeMessage(message.address, message.args));
    }
  }

  /** Sends a subscriber one feedback message, or marks it behind when its address is over budget. */
  #feed(subscriber: Subscriber, bytes: Uint8Array<ArrayBuffer>): void {
    if (this.#behind.has(subscriber)) return;
    if (this.#outbox.feed(subscriber, bytes)) return;
    this.#behind.add(subscriber);
    this.#resyncTimer ??= setInterval(() => this.#resync(), RESYNC_MS);
  }

  /** Sends subscribers that fell behind their current values, once their budget holds them all. */
  #resync(): void {
    const live = new Set(this.#subscriptions.live());
    for (const s of this.#behind) {
      if (!live.has(s)) {
        this.#behind.delete(s);
        continue;
      }
      const active = this.#model.activeProjectId;
      const messages = currentFeedback(this.#model, s.filter.projectId)
        .filter((m) => passes(s.filter, m, active))
        .map((m) => encodeMessage(m.address, m.args));
      const bytes = messages.reduce((sum, m) => sum + m.length, 0);
      if (this.#outbox.available(s.address) < bytes) continue;
      this.#behind.delete(s);
      for (const m of messages) this.#feed(s, m);
    }
    if (this.#behind.size === 0 && this.#resyncTimer !== null) {
      clearInterval(this.#resyncTimer);
      this.#resyncTimer = null;
    }
  }
}

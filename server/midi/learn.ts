/**
 * MIDI learn: a client names an action (and its params); the next message
 * from an admitted source that can be bound (a note on, a control change, a
 * program change, start, stop, continue) becomes a binding of that action,
 * instead of running. One learn waits at a time: a new one ends the one
 * before (`replaced`). A learn ends when the client ends it (`cancel`, or
 * its request closes) or after a generous cap (`LEARN_CAP_MS`); the cap only
 * bounds a learn nobody ends.
 * @module
 */
import type { BindingKind, MidiBinding, MidiLearnRequest } from "../../protocol/midi.ts";
import { CueportError } from "../core/mod.ts";
import type { MidiMessage, MidiSource } from "./messages.ts";
import { type ReaderClock, SYSTEM_READER_CLOCK } from "./timecode.ts";

/** The longest a learn waits for a message: 10 minutes. */
export const LEARN_CAP_MS = 10 * 60_000;

/** What a client asks to learn (`protocol/midi.ts`; a learn ignores `projectId`). */
export type LearnRequest = MidiLearnRequest;

/** How a learn ended. */
export type LearnOutcome =
  | { learned: true; binding: MidiBinding; message: MidiMessage; from: MidiSource }
  | { learned: false; reason: "cancelled" | "replaced" };

interface Waiting {
  request: LearnRequest;
  settle: (outcome: LearnOutcome) => void;
  fail: (error: unknown) => void;
}

/** The binding a message makes for a request, or null when the message cannot be bound. */
export function bindingOf(request: LearnRequest, message: MidiMessage): MidiBinding | null {
  const base = { params: request.params, action: request.action, min: 0, max: 1 };
  const of = (kind: BindingKind, channel: number | null, number: number | null) => ({
    ...base,
    kind,
    channel,
    number,
  });
  switch (message.type) {
    case "noteOn":
      return of("noteOn", message.channel, message.note);
    case "programChange":
      return of("programChange", message.channel, message.program);
    case "controlChange": {
      const binding: MidiBinding = of("controlChange", message.channel, message.controller);
      if (request.value !== undefined) binding.value = request.value;
      binding.min = request.min ?? 0;
      binding.max = request.max ?? 1;
      return binding;
    }
    case "start":
    case "stop":
    case "continue":
      return of(message.type, null, null);
    default:
      return null;
  }
}

/** The learn that waits, if any. */
export class MidiLearn {
  #waiting: Waiting | null = null;
  #capMs: number;
  #clock: ReaderClock;

  /**
   * `capMs` bounds a learn nobody ends (default `LEARN_CAP_MS`), counted on
   * `clock` (default real time; tests give a virtual clock).
   */
  constructor(options: { capMs?: number; clock?: ReaderClock } = {}) {
    this.#capMs = options.capMs ?? LEARN_CAP_MS;
    this.#clock = options.clock ?? SYSTEM_READER_CLOCK;
  }

  /** Whether a learn waits. */
  get isLearning(): boolean {
    return this.#waiting !== null;
  }

  /** What the waiting learn asks, or null. */
  get request(): LearnRequest | null {
    return this.#waiting?.request ?? null;
  }

  /**
   * Waits for the next message that can be bound, as `request` asks; ends
   * the learn that waited before. `signal` ends it too (the client left).
   * @throws {CueportError} TIMEOUT when nothing came within the cap
   */
  wait(request: LearnRequest, signal?: AbortSignal): Promise<LearnOutcome> {
    this.#end({ learned: false, reason: "replaced" });
    const { promise, resolve, reject } = Promise.withResolvers<LearnOutcome>();
    const clock = this.#clock;
    const timer = clock.setTimer(clock.now() + this.#capMs, () => {
      waiting.fail(
        new CueportError(
          "TIMEOUT",
          `No MIDI message came within ${this.#capMs / 60_000} minutes: send one while learning`,
        ),
      );
    });
    const done = () => {
      clock.clearTimer(timer);
      signal?.removeEventListener("abort", onAbort);
      if (this.#waiting === waiting) this.#waiting = null;
    };
    const onAbort = () => waiting.settle({ learned: false, reason: "cancelled" });
    const waiting: Waiting = {
      request,
      settle: (outcome) => {
        done();
        resolve(outcome);
      },
      fail: (error) => {
        done();
        reject(error);
      },
    };
    this.#waiting = waiting;
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    return promise;
  }

  /** Ends the waiting learn; false when none waited. */
  cancel(): boolean {
    return this.#end({ learned: false, reason: "cancelled" });
  }

  /** Binds a message to the waiting learn; true when it was taken (it does not run). */
  offer(message: MidiMessage, from: MidiSource): boolean {
    const waiting = this.#waiting;
    if (!waiting) return false;
    const binding = bindingOf(waiting.request, message);
    if (!binding) return false;
    waiting.settle({ learned: true, binding, message, from });
    return true;
  }

  #end(outcome: LearnOutcome): boolean {
    const waiting = this.#waiting;
    if (!waiting) return false;
    waiting.settle(outcome);
    return true;
  }
}

/**
 * Values arriving faster than the player takes them (a fader's CC stream),
 * coalesced per target as OSC's are (`server/osc/coalesce.ts`): one call per
 * target at the player, and behind it only the latest value, which runs when
 * the one before is done. MIDI asks no replies, so a replaced value is
 * simply dropped. Calls that set no value (notes, transport) run at once,
 * at most `MAX_WAITING_CALLS` per source waiting for the player.
 * @module
 */

/** Calls of one source waiting for the player, beyond coalesced values: past it a call is dropped. */
export const MAX_WAITING_CALLS = 256;

/** The actions that set one value, coalesced by their first param. */
const VALUE_ACTIONS = new Set(["SET_CONTROL", "SET_PARAM", "OUTPUT_LEVEL_IN"]);

/** The coalescing key of an action call, or null when it sets no value. */
export function valueKey(name: string, params: readonly unknown[]): string | null {
  if (!VALUE_ACTIONS.has(name)) return null;
  const target = name === "OUTPUT_LEVEL_IN" ? "" : String(params[0] ?? "").toUpperCase();
  return `${name}|${target}`;
}

/** Runs calls, values coalesced by key and the rest counted per source. */
export class MidiCalls {
  /** The latest call waiting behind a running one, by key (null: one runs, none waits). */
  #values = new Map<string, (() => unknown) | null>();
  #waiting = new Map<string, number>();
  /** Calls dropped: a source past `MAX_WAITING_CALLS`, or a value replaced before it ran. */
  dropped = 0;

  /** Runs `call` for `source`, coalesced under `key` when it sets a value. */
  run(key: string | null, source: string, call: () => unknown): void {
    if (key === null) return this.#counted(source, call);
    if (this.#values.has(key)) {
      if (this.#values.get(key)) this.dropped++;
      this.#values.set(key, call);
      return;
    }
    this.#values.set(key, null);
    this.#start(key, call);
  }

  #start(key: string, call: () => unknown): void {
    const next = () => {
      const waiting = this.#values.get(key);
      if (waiting) {
        this.#values.set(key, null);
        this.#start(key, waiting);
      } else {
        this.#values.delete(key);
      }
    };
    settled(call).then(next);
  }

  #counted(source: string, call: () => unknown): void {
    const count = this.#waiting.get(source) ?? 0;
    if (count >= MAX_WAITING_CALLS) {
      this.dropped++;
      return;
    }
    this.#waiting.set(source, count + 1);
    settled(call).then(() => {
      const left = (this.#waiting.get(source) ?? 1) - 1;
      if (left > 0) this.#waiting.set(source, left);
      else this.#waiting.delete(source);
    });
  }
}

/** Runs `call`; resolves when its outcome is known, whatever it is (the caller reports failures). */
function settled(call: () => unknown): Promise<void> {
  try {
    return Promise.resolve(call()).then(() => {}, () => {});
  } catch {
    return Promise.resolve();
  }
}

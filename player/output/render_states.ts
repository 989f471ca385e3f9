/**
 * The render states the output pushes to its page: one per burst of changes (the burst ends
 * at the next microtask, or at once when a request to the page must see it), each with the
 * next sequence number, the player clock and since when nothing plays; and the log of those
 * sent.
 * @module
 */
import type { RenderState } from "../../protocol/output.ts";
import type { Clock } from "../clock.ts";
import type { IsfPrograms } from "./isf_programs.ts";
import { buildRenderState, type RenderSource } from "./render_state.ts";

/** States sent remembered, newest last. */
const PUSHES_KEPT = 1024;

/** Options of `RenderStates`. */
export interface RenderStatesOptions {
  /** The active Project's show, or null when none is open. */
  source(): RenderSource | null;
  clock: Clock;
  /** 1 when the clock is real time, 0 on a virtual clock. */
  clockRate: number;
  programs: IsfPrograms;
  /** Pushes the state now (`build` it, send it): the burst is over. */
  push(): void;
}

/** When the output pushes a state, and what it holds. */
export class RenderStates {
  /** The states sent (sequence and player clock), newest last (at most 1024). */
  readonly pushes: { seq: number; at: number }[] = [];
  #options: RenderStatesOptions;
  #seq = 0;
  #isQueued = false;
  #idleSince: number | null = null;

  /** Nothing queued, nothing sent. */
  constructor(options: RenderStatesOptions) {
    this.#options = options;
  }

  /** The show changed: a push once this burst of changes is over. */
  changed(): void {
    if (this.#isQueued) return;
    this.#isQueued = true;
    queueMicrotask(() => this.flush());
  }

  /** Pushes the queued state now: a request to the page must see every change made before it. */
  flush(): void {
    if (!this.#isQueued) return;
    this.#isQueued = false;
    this.#options.push();
  }

  /** The render state now, or null when no Project is open. */
  build(): RenderState | null {
    const { source, clock, clockRate, programs } = this.#options;
    const show = source();
    if (!show) return null;
    const now = clock.now();
    const isIdle = show.playState.clips.length === 0;
    if (!isIdle) this.#idleSince = null;
    else this.#idleSince ??= now;
    return buildRenderState({ ...show, programs }, {
      seq: ++this.#seq,
      clock: { now, rate: clockRate },
      idleSince: this.#idleSince ?? now,
    });
  }

  /** `state` went to the page. */
  sent(state: RenderState): void {
    this.pushes.push({ seq: state.seq, at: state.clock.now });
    if (this.pushes.length > PUSHES_KEPT) this.pushes.shift();
  }
}

/**
 * Deciding, from the page's progress, that a shader stopped the output's
 * picture, and what to do about it: quarantine the preset changed last on the
 * output, then, if the page still draws nothing, start the browser again.
 *
 * The bound counts progress, not time (slow is not dead): a page stalls when
 * it keeps sending its once-a-second reports with no frame drawn
 * (`STALL_REPORTS` of them in a row), or when it sends nothing at all while its
 * browser burns `STALL_CPU_MS` of CPU (its main thread waits on GL stuck in a
 * draw). On a busy machine both stretch with the browser's share of the CPU;
 * a page drawing one frame in a report is drawing, however slowly. A browser
 * starting and a page loading are not judged: only a page that said hello and
 * got a state to draw is. Pure logic (no timers): `quarantine.ts` feeds it.
 * @module
 */

/** Reports in a row with no frame drawn (the page is alive, its GL is not) that make a stall. */
export const STALL_REPORTS = 3;
/** CPU time the browser uses while its page sends nothing and draws nothing that makes a stall, ms. */
export const STALL_CPU_MS = 3000;
/** The same, once the suspect is off the output, before the browser is started again. */
export const RECOVER_REPORTS = 2;
/** The same in CPU time, ms. */
export const RECOVER_CPU_MS = 1500;

/** What to do about a stall. */
export type StallVerdict =
  | { action: "quarantine"; presetId: string; reason: string }
  | { action: "restart"; reason: string };

/** The stall decision of one output (see the module). */
export class QuarantineWatch {
  /** A page said hello and was given a state to draw: it is judged. */
  #hasPage = false;
  #hasState = false;
  #zeroReports = 0;
  #silentCpuMs = 0;
  #lastCpuMs: number | null = null;
  #hasMessage = false;
  /** The preset just taken off the output, while the page has not drawn since. */
  #pending: string | null = null;
  /** The presets the last state drew, with their program and when each changed (a count). */
  #onOutput = new Map<string, { program: string; change: number }>();
  #changes = 0;

  /** A browser started: nothing is judged until its page says hello. */
  browserStarted(): void {
    this.#hasPage = false;
    this.#pending = null;
    this.#reset();
  }

  /** The page said hello (a browser start, a reload): it is judged once it has a state. */
  pageLoaded(): void {
    this.#hasPage = true;
    this.#hasState = false;
    this.#reset();
  }

  /**
   * A state went to the page, drawing `presets` (preset id to program): a preset new on the
   * output, or drawn with another program (its code changed), is the newest change.
   */
  statePushed(presets: ReadonlyMap<string, string>): void {
    if (this.#hasPage) this.#hasState = true;
    const next = new Map<string, { program: string; change: number }>();
    for (const [presetId, program] of presets) {
      const seen = this.#onOutput.get(presetId);
      next.set(
        presetId,
        seen?.program === program ? seen : { program, change: ++this.#changes },
      );
    }
    this.#onOutput = next;
  }

  /** The page sent something (its main thread runs). */
  message(): void {
    this.#hasMessage = true;
  }

  /** A frame report of the page; a verdict when it completes a stall. */
  report(frames: number, isVisible: boolean): StallVerdict | null {
    this.message();
    if (frames > 0 || !isVisible || !this.#isJudged()) {
      // Drawing (or hidden, which draws nothing by right): whatever was taken off helped.
      if (frames > 0) this.#pending = null;
      this.#reset();
      return null;
    }
    this.#zeroReports++;
    const bound = this.#pending ? RECOVER_REPORTS : STALL_REPORTS;
    if (this.#zeroReports < bound) return null;
    return this.#verdict(`the page drew no frame in ${this.#zeroReports} reports in a row`);
  }

  /**
   * A look at the browser's CPU time (`cpuMs`, null when unknown), about once a second; a
   * verdict when the page sent nothing since the last look and the CPU spent so makes a stall.
   */
  tick(cpuMs: number | null): StallVerdict | null {
    const last = this.#lastCpuMs;
    this.#lastCpuMs = cpuMs;
    if (this.#hasMessage || !this.#isJudged()) {
      this.#hasMessage = false;
      this.#silentCpuMs = 0;
      return null;
    }
    if (cpuMs !== null && last !== null && cpuMs > last) this.#silentCpuMs += cpuMs - last;
    const bound = this.#pending ? RECOVER_CPU_MS : STALL_CPU_MS;
    if (this.#silentCpuMs < bound) return null;
    const s = (this.#silentCpuMs / 1000).toFixed(1);
    return this.#verdict(`the page sent nothing while its browser used ${s} s of CPU`);
  }

  #isJudged(): boolean {
    return this.#hasPage && this.#hasState;
  }

  #verdict(seen: string): StallVerdict | null {
    if (this.#pending) {
      this.#pending = null;
      this.#hasPage = false;
      this.#reset();
      return { action: "restart", reason: `${seen} after the preset went off the output` };
    }
    let suspect: [string, number] | null = null;
    for (const [presetId, { change }] of this.#onOutput) {
      if (!suspect || change > suspect[1]) suspect = [presetId, change];
    }
    // No preset drawn: no shader of a user's to blame (the browser's health sees to the rest).
    if (!suspect) return null;
    this.#pending = suspect[0];
    this.#onOutput.delete(suspect[0]);
    this.#reset();
    return { action: "quarantine", presetId: suspect[0], reason: seen };
  }

  #reset(): void {
    this.#zeroReports = 0;
    this.#silentCpuMs = 0;
  }
}

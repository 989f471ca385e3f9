/**
 * Deciding, from the page's progress, that a shader stopped the output's
 * picture, and what to do about it: quarantine a preset that changed on the
 * output after the last frame the page is known to have drawn, then, if the
 * page still draws nothing, start the browser again.
 *
 * The bound counts progress, not time (slow is not dead): a page stalls when
 * it keeps sending its once-a-second reports with no frame drawn
 * (`STALL_REPORTS` of them in a row), or when it sends nothing at all while its
 * browser burns `STALL_CPU_MS_PER_CORE` of CPU for each core it may use (its
 * main thread waits on GL stuck in a draw; software GL draws on every core),
 * or when it sends nothing for `STALL_SILENT_CHECKS` looks in a row (where the
 * CPU time is known, looks in which its browser used some: a stopped browser is
 * not judged), whichever comes first. A page loaded (again) that has not drawn
 * its first frame yet is not judged by its looks where the CPU time is known:
 * it compiles its programs and draws its first frames, silent for as long as
 * its share of a busy machine takes, and only the CPU it burns (the work done)
 * makes it stuck. On a busy machine the first two stretch
 * with the browser's share of the CPU; a page drawing one frame in a report is
 * drawing, however slowly. A browser starting, a page loading and a page
 * without WebGL2 are not judged, nor a page gone (its socket closed): only a
 * page that said hello with a GL and got a state to draw is.
 *
 * Only a suspect is blamed: a preset new on the output (or drawn with a new
 * program) after the last state known drawn: one the page drew frames of in
 * `KNOWN_DRAWN_REPORTS` reports in a row (the first reports after a change may
 * count frames drawn before its program compiled, or one the GPU never
 * finished; a heavy shader whose frames come between reports of none is not
 * known to finish). A stall with
 * no suspect (a GPU, the machine, a video) blames no preset: `page_health.ts`
 * judges that page by its progress. Pure logic (no timers): `quarantine.ts`
 * feeds it.
 * @module
 */

/** Reports in a row with no frame drawn (the page is alive, its GL is not) that make a stall. */
export const STALL_REPORTS = 3;
/**
 * CPU time the browser uses, for each core it may use, while its page sends nothing and draws
 * nothing that makes a stall, ms: SwiftShader draws on every core, so on 2 cores 6 s of CPU is
 * a page silent for 3 s while its browser used both.
 */
export const STALL_CPU_MS_PER_CORE = 3000;
/** Looks in a row (about a second apart) with no message at all that make a stall (where the CPU time is known, looks in which the browser used some). */
export const STALL_SILENT_CHECKS = 5;
/** Reports with no frame, once the suspect is off the output, before the browser is started again. */
export const RECOVER_REPORTS = 2;
/** The same in CPU time for each core, ms. */
export const RECOVER_CPU_MS_PER_CORE = 1500;
/** The same in silent looks where the CPU time is unknown. */
export const RECOVER_SILENT_CHECKS = 3;
/**
 * Reports in a row with frames, from a page drawing a state, after which the presets it drew are
 * known drawn (no suspects of a later stall): a page draws a new state at once, but a preset's
 * program compiles in the background meanwhile (its Effect drawn as if off until then; seen
 * here: 10 frames, then 1, then one every 7 s), so the first reports prove little.
 */
export const KNOWN_DRAWN_REPORTS = 10;
/** States remembered with their change count, for the page's reports to name (bounded). */
const MAX_PUSHES = 256;

/** What to do about a stall. */
export type StallVerdict =
  | {
    action: "quarantine";
    presetId: string;
    reason: string;
    /**
     * The page was silent (its main thread waits on GL stuck in the draw): it cannot take the
     * state without the preset, so its browser is started again at once.
     */
    restart: boolean;
  }
  | { action: "restart"; reason: string };

/** A frame report as the watch reads it: frames drawn, visibility, the state seq last drawn. */
export interface WatchedReport {
  frames: number;
  isVisible: boolean;
  seq: number;
}

/** The stall decision of one output (see the module); `cores`: the cores the browser may use. */
export class QuarantineWatch {
  readonly #cores: number;
  /** A page said hello with a GL and was given a state to draw: it is judged. */
  #hasPage = false;
  #hasState = false;
  #isHidden = false;
  #zeroReports = 0;
  #silentCpuMs = 0;
  #silentChecks = 0;
  #lastCpuMs: number | null = null;
  #hasMessage = false;
  /** The page drew a frame since it said hello (before, it compiles: its looks are not judged). */
  #hasDrawn = false;
  /** The preset just taken off the output, while the page has not drawn since. */
  #pending: string | null = null;
  /** The browser was started again for a suspect's stall, and its new page has not said hello. */
  #isRecovering = false;
  /** The page's GL is software (SwiftShader, llvmpipe): its stuck draw holds the CPU. */
  #isSoftwareGl = false;
  /** The presets the last state drew, with their program and when each changed (a count). */
  #onOutput = new Map<string, { program: string; change: number }>();
  #changes = 0;
  /** The states pushed (seq) with the change count of each, oldest first. */
  #pushes: { seq: number; change: number }[] = [];
  /** The change counts of the states named by the last reports, all with frames, oldest first. */
  #drawing: number[] = [];
  /** The change count of the last frame known drawn: no preset changed up to it is a suspect. */
  #drawn = 0;

  constructor(cores = 1) {
    this.#cores = Math.max(1, cores);
  }

  /** A browser started: nothing is judged until its page says hello. */
  browserStarted(): void {
    this.#hasPage = false;
    this.#pending = null;
    this.#reset();
  }

  /**
   * The page's socket is closed (its window closed while the editor's keeps the browser, a
   * reload): nothing is judged until a page says hello again. The browser works on meanwhile
   * (another page, a window opening) while no page can send anything: no silence of a page.
   */
  pageGone(): void {
    this.#hasPage = false;
    this.#pending = null;
    this.#reset();
  }

  /** The page said hello with its renderer (a browser start, a reload): judged once it has a state. */
  pageLoaded(gl = "webgl2"): void {
    // A page without WebGL2 draws nothing whatever its presets: the GL rule sees to it.
    this.#hasPage = gl !== "unavailable";
    this.#isSoftwareGl = /swiftshader|llvmpipe|software/i.test(gl);
    this.#isRecovering = false;
    this.#hasState = false;
    this.#isHidden = false;
    this.#hasDrawn = false;
    this.#drawing = [];
    this.#reset();
  }

  /**
   * State `seq` went to the page, drawing `presets` (preset id to program): a preset new on the
   * output, or drawn with another program (its code changed), is the newest change.
   */
  statePushed(presets: ReadonlyMap<string, string>, seq: number): void {
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
    this.#pushes.push({ seq, change: this.#changes });
    if (this.#pushes.length > MAX_PUSHES) this.#pushes.shift();
  }

  /** The page sent something (its main thread runs). */
  message(): void {
    this.#hasMessage = true;
  }

  /**
   * Whether a shader is suspected of the page's trouble now: one that changed after the last
   * frame known drawn, one taken off the output while the page has not drawn since, or one whose
   * stall started the browser again while its new page has not said hello.
   */
  get isSuspecting(): boolean {
    if (this.#isRecovering) return true;
    return this.#isJudged() && (this.#pending !== null || this.#suspect() !== null);
  }

  /** A frame report of the page; a verdict when it completes a stall. */
  report({ frames, isVisible, seq }: WatchedReport): StallVerdict | null {
    this.message();
    this.#isHidden = !isVisible;
    if (frames > 0) this.#hasDrawn = true;
    if (frames > 0) this.#drew(seq);
    else this.#drawing = [];
    if (frames > 0 || !isVisible || !this.#isJudged()) {
      // Drawing (or hidden, which draws nothing by right): whatever was taken off helped.
      if (frames > 0) this.#pending = null;
      this.#reset();
      return null;
    }
    this.#zeroReports++;
    const bound = this.#pending ? RECOVER_REPORTS : STALL_REPORTS;
    if (this.#zeroReports < bound) return null;
    return this.#verdict(
      `the page drew no frame in ${this.#zeroReports} reports in a row`,
      false,
    );
  }

  /**
   * A look at the browser's CPU time (`cpuMs`, null when unknown), about once a second; a
   * verdict when the page sent nothing since the last look and the CPU spent so (or, CPU
   * unknown, the looks in a row) makes a stall.
   */
  tick(cpuMs: number | null): StallVerdict | null {
    const last = this.#lastCpuMs;
    this.#lastCpuMs = cpuMs;
    if (this.#hasMessage || !this.#isJudged() || this.#isHidden) {
      this.#hasMessage = false;
      this.#silentCpuMs = 0;
      this.#silentChecks = 0;
      return null;
    }
    if (cpuMs === null) return this.#silentCheck();
    const used = last !== null && cpuMs > last ? cpuMs - last : 0;
    this.#silentCpuMs += used;
    // A silent page whose browser works (not a browser that is stopped) is also judged by its
    // silent looks: on a busy machine the browser's share of the CPU stretches the CPU bound
    // past the picture's 10 s (6 s of CPU took 10 s beside `stress-ng --cpu 4`). Not a page
    // that has yet to draw its first frame: it compiles its programs, as slow as the machine.
    const silent = used > 0 && this.#hasDrawn ? this.#silentCheck() : null;
    if (silent) return silent;
    const bound = (this.#pending ? RECOVER_CPU_MS_PER_CORE : STALL_CPU_MS_PER_CORE) * this.#cores;
    if (this.#silentCpuMs < bound) return null;
    const s = (this.#silentCpuMs / 1000).toFixed(1);
    return this.#verdict(
      `the page sent nothing while its browser used ${s} s of CPU (${this.#cores} cores)`,
      true,
    );
  }

  /**
   * Silence after a suspect's change is the evidence: `STALL_SILENT_CHECKS` looks in a row (where
   * the CPU time is known, only looks in which the browser used some).
   */
  #silentCheck(): StallVerdict | null {
    if (!this.isSuspecting) return null;
    this.#silentChecks++;
    const bound = this.#pending ? RECOVER_SILENT_CHECKS : STALL_SILENT_CHECKS;
    if (this.#silentChecks < bound) return null;
    return this.#verdict(`the page sent nothing in ${this.#silentChecks} looks in a row`, true);
  }

  /**
   * A report with frames from a page that last drew state `seq`: the state named by the report
   * `KNOWN_DRAWN_REPORTS` - 1 before it is known drawn when every report since had frames.
   */
  #drew(seq: number): void {
    let change: number | null = null;
    while (this.#pushes[0] && this.#pushes[0].seq <= seq) {
      change = this.#pushes.shift()!.change;
    }
    // The state drawn now stays named, for the reports that come from it.
    if (change !== null) this.#pushes.unshift({ seq, change });
    this.#drawing.push(change ?? this.#drawing.at(-1) ?? this.#drawn);
    if (this.#drawing.length < KNOWN_DRAWN_REPORTS) return;
    this.#drawn = Math.max(this.#drawn, this.#drawing.shift()!);
  }

  #isJudged(): boolean {
    return this.#hasPage && this.#hasState;
  }

  /** The preset changed last after the last frame known drawn, or null. */
  #suspect(): string | null {
    let suspect: [string, number] | null = null;
    for (const [presetId, { change }] of this.#onOutput) {
      if (change > this.#drawn && (!suspect || change > suspect[1])) suspect = [presetId, change];
    }
    return suspect?.[0] ?? null;
  }

  /** The verdict of a stall seen so (`isSilent`: the page sent nothing at all). */
  #verdict(seen: string, isSilent: boolean): StallVerdict | null {
    if (this.#pending) {
      this.#restarting();
      return { action: "restart", reason: `${seen} after the preset went off the output` };
    }
    // No suspect: no shader of a user's to blame (the browser's health sees to the rest).
    const suspect = this.#suspect();
    this.#reset();
    if (!suspect) return null;
    this.#pending = suspect;
    this.#onOutput.delete(suspect);
    // Software GL draws on the CPU: a draw it is stuck in ends when it ends, whatever state comes.
    const restart = isSilent || this.#isSoftwareGl;
    if (restart) this.#restarting();
    return { action: "quarantine", presetId: suspect, reason: seen, restart };
  }

  /** The browser is started again: its next page is judged once it says hello. */
  #restarting(): void {
    this.#pending = null;
    this.#hasPage = false;
    this.#isRecovering = true;
    this.#reset();
  }

  #reset(): void {
    this.#zeroReports = 0;
    this.#silentCpuMs = 0;
    this.#silentChecks = 0;
  }
}

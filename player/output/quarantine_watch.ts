/**
 * Deciding, from the page's progress, that a shader stopped the output's
 * picture, and what to do about it: quarantine a preset that changed on the
 * output after the last frame the page is known to have drawn, then, if the
 * page still draws nothing, start the browser again.
 *
 * The bound counts progress, not time (slow is not dead). On software GL
 * (SwiftShader, llvmpipe) where the browser's CPU time is known, a frame, slow
 * or stuck, is paid in CPU whatever the machine's load: a page stalls when its
 * browser used `STALL_CPU_MS_PER_CORE` of CPU for each core it may use since
 * the page's last frame, whether it sent reports without frames or nothing at
 * all (a starved machine stretches reports and looks, never the work of a
 * frame: beside `stress-ng --cpu 6` a page drawing a frame every few seconds
 * sent nothing for 5 s while its browser got 0.08 s of CPU a second). On a GPU
 * (a draw stuck there burns no CPU), or where the CPU time is unknown, a page
 * also stalls when it keeps sending its once-a-second reports with no frame
 * drawn (`STALL_REPORTS` of them in a row), or sends nothing for
 * `STALL_SILENT_CHECKS` looks in a row (where the CPU time is known, looks in
 * which its browser used some: a stopped browser is not judged; nor, there, a
 * page loaded again that has yet to draw its first frame: it compiles its
 * programs, as slow as the machine), both times the machine's load average for
 * each core where it is known. A page drawing one frame in a report is
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
 * CPU time the browser uses, for each core it may use, since its page's last frame that makes a
 * stall, ms: SwiftShader draws on every core, so on 2 cores 6 s of CPU is
 * a page silent for 3 s while its browser used both.
 */
export const STALL_CPU_MS_PER_CORE = 3000;
/**
 * Looks in a row (about a second apart) with no message at all that make a stall on a GPU or where
 * the CPU time is unknown (where it is known, looks in which the browser used some), times the load
 * for each core.
 */
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
/**
 * On software GL, where the browser's CPU time is known, those reports must also span this much of
 * its CPU for each core (the work of a stall): a starved browser compiles a new program in the
 * background as slowly as it draws, so reports with frames drawn as if without it come for longer
 * than `KNOWN_DRAWN_REPORTS` (beside `stress-ng --cpu 4`, load average 25 on 2 cores, an endless
 * loop's preset was known drawn before its program first ran, and the output froze unquarantined).
 */
export const KNOWN_DRAWN_CPU_MS_PER_CORE = STALL_CPU_MS_PER_CORE;
/** States remembered with their change count, for the page's reports to name (bounded). */
const MAX_PUSHES = 256;

/** What to do about a stall. */
export type StallVerdict =
  | {
    action: "quarantine";
    presetId: string;
    reason: string;
    /** The figures behind it, for the log (reports, looks, CPU, load average). */
    figures: string;
    /**
     * The page was silent (its main thread waits on GL stuck in the draw): it cannot take the
     * state without the preset, so its browser is started again at once.
     */
    restart: boolean;
  }
  | { action: "restart"; reason: string; figures: string };

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
  #silentChecks = 0;
  #lastCpuMs: number | null = null;
  /** CPU ms the browser used since the look after the page's last frame (or since it was judged). */
  #cpuSinceFrame = 0;
  /** The page reported frames since the last look (the CPU up to it drew them). */
  #drewSinceLook = false;
  /** The machine's load average at the last look (null: unknown). */
  #load: number | null = null;
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
  /** The change counts of the states the last reports named, all with frames, oldest first,
   * each with the browser's CPU time (ms, null: unknown) at the look before its report. */
  #drawing: { change: number; cpuMs: number | null }[] = [];
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
    if (frames > 0) this.#hasDrawn = this.#drewSinceLook = true;
    if (frames > 0) this.#drew(seq);
    else this.#drawing = [];
    if (frames > 0 || !isVisible || !this.#isJudged()) {
      // Drawing (or hidden, which draws nothing by right): whatever was taken off helped.
      if (frames > 0) this.#pending = null;
      this.#reset();
      return null;
    }
    this.#zeroReports++;
    // Software GL's frames are paid in CPU: reports without one judge nothing where it is known.
    if (this.#isJudgedByWork()) return null;
    const bound = this.#byLoad(this.#pending ? RECOVER_REPORTS : STALL_REPORTS);
    if (this.#zeroReports < bound) return null;
    return this.#verdict(
      `the page drew no frame in ${this.#zeroReports} reports in a row`,
      false,
    );
  }

  /**
   * A look at the browser's CPU time (`cpuMs`, null when unknown) and the machine's load average
   * (`load`, null when unknown), about once a second; a verdict when the CPU the browser used
   * since the page's last frame, or (where a frame's cost is not its CPU) the page's silence,
   * makes a stall.
   */
  tick(cpuMs: number | null, load: number | null = null): StallVerdict | null {
    const last = this.#lastCpuMs;
    this.#lastCpuMs = cpuMs;
    this.#load = load;
    const used = last !== null && cpuMs !== null && cpuMs > last ? cpuMs - last : 0;
    if (last !== null && cpuMs !== null && cpuMs < last) {
      // Another browser's CPU time (fewer processes): its work is counted from here.
      for (const drawing of this.#drawing) drawing.cpuMs = cpuMs;
    }
    const hadMessage = this.#hasMessage;
    this.#hasMessage = false;
    if (!this.#isJudged() || this.#isHidden) {
      this.#reset();
      return null;
    }
    this.#cpuSinceFrame = this.#drewSinceLook ? 0 : this.#cpuSinceFrame + used;
    this.#drewSinceLook = false;
    if (hadMessage) {
      this.#silentChecks = 0;
    } else if (cpuMs === null) return this.#silentCheck();
    else if (!this.#isJudgedByWork()) {
      // A silent page whose browser works (not one that is stopped) on a GPU is judged by its
      // silent looks too, their bound stretched by the machine's load. Not a page that has yet
      // to draw its first frame: it compiles its programs, as slow as the machine.
      const silent = used > 0 && this.#hasDrawn ? this.#silentCheck() : null;
      if (silent) return silent;
    } else this.#silentChecks++; // for the figures: the work judges here
    return this.#cpuCheck(hadMessage);
  }

  /**
   * The work rule: no frame while the browser used the CPU bound for each core since the last
   * one (a slow frame costs the same CPU however busy the machine; a stuck draw never ends).
   */
  #cpuCheck(hadMessage: boolean): StallVerdict | null {
    const bound = (this.#pending ? RECOVER_CPU_MS_PER_CORE : STALL_CPU_MS_PER_CORE) * this.#cores;
    if (this.#cpuSinceFrame < bound) return null;
    const isSilent = !hadMessage && this.#zeroReports === 0;
    const s = (this.#cpuSinceFrame / 1000).toFixed(1);
    return this.#verdict(
      `the page ${
        isSilent ? "sent nothing" : "drew no frame"
      } while its browser used ${s} s of CPU (${this.#cores} cores)`,
      isSilent,
    );
  }

  /**
   * Silence after a suspect's change is the evidence: `STALL_SILENT_CHECKS` looks in a row (where
   * the CPU time is known, only looks in which the browser used some), times the load's factor.
   */
  #silentCheck(): StallVerdict | null {
    if (!this.isSuspecting) return null;
    this.#silentChecks++;
    const bound = this.#byLoad(this.#pending ? RECOVER_SILENT_CHECKS : STALL_SILENT_CHECKS);
    if (this.#silentChecks < bound) return null;
    return this.#verdict(`the page sent nothing in ${this.#silentChecks} looks in a row`, true);
  }

  /**
   * Whether the page is judged by the work its browser did only: software GL (SwiftShader,
   * llvmpipe) draws on the CPU, so a frame (slow or stuck) is paid in CPU time, which is known.
   * Reports and looks count time, and a starved machine stretches time, not work.
   */
  #isJudgedByWork(): boolean {
    return this.#isSoftwareGl && this.#lastCpuMs !== null;
  }

  /**
   * A bound in reports or looks (time, a second each) stretched by the machine's load for each
   * core: a page given a tenth of its share takes ten times the looks to show the same progress.
   */
  #byLoad(bound: number): number {
    return Math.ceil(bound * this.#loadFactor());
  }

  #loadFactor(): number {
    return this.#load === null ? 1 : Math.max(1, this.#load / this.#cores);
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
    const named = change ?? this.#drawing.at(-1)?.change ?? this.#drawn;
    this.#drawing.push({ change: named, cpuMs: this.#lastCpuMs });
    while (
      this.#drawing.length >= KNOWN_DRAWN_REPORTS &&
      (this.#isWorkDrawnPast(this.#drawing[0]!) || this.#drawing.length > MAX_PUSHES)
    ) this.#drawn = Math.max(this.#drawn, this.#drawing.shift()!.change);
  }

  /**
   * Whether the browser did the work of a stall since a report with frames (software GL, CPU time
   * known: `KNOWN_DRAWN_CPU_MS_PER_CORE` for each core); elsewhere the reports alone count.
   */
  #isWorkDrawnPast({ cpuMs }: { cpuMs: number | null }): boolean {
    const now = this.#lastCpuMs;
    if (!this.#isSoftwareGl || cpuMs === null || now === null) return true;
    return now - cpuMs >= KNOWN_DRAWN_CPU_MS_PER_CORE * this.#cores;
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

  /** The figures of a verdict: what each rule counted, and the machine's load. */
  #figures(): string {
    const perCore = Math.round(this.#cpuSinceFrame / this.#cores);
    return `${this.#zeroReports} reports without a frame, ${this.#silentChecks} silent looks, ` +
      `${
        (perCore / 1000).toFixed(1)
      } s of CPU a core since the last frame, ${this.#cores} cores, ` +
      `load average ${this.#load ?? "unknown"} (bounds in looks x${this.#loadFactor().toFixed(1)})`;
  }

  /** The verdict of a stall seen so (`isSilent`: the page sent nothing at all). */
  #verdict(seen: string, isSilent: boolean): StallVerdict | null {
    const figures = this.#figures();
    if (this.#pending) {
      this.#restarting();
      return { action: "restart", reason: `${seen} after the preset went off the output`, figures };
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
    return { action: "quarantine", presetId: suspect, reason: seen, restart, figures };
  }

  /** The browser is started again: its next page is judged once it says hello. */
  #restarting(): void {
    this.#pending = null;
    this.#hasPage = false;
    this.#isRecovering = true;
    this.#reset();
  }

  #reset(): void {
    this.#cpuSinceFrame = 0;
    this.#zeroReports = 0;
    this.#silentChecks = 0;
  }
}

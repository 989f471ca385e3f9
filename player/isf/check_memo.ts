/**
 * ISF checks started ahead of their edit's turn. A shader edit checks its code beside the
 * player's order of requests (`player/edits/mod.ts`, `checkIsfCodeBeside`), and the turn that
 * applies it takes that check's result here instead of checking again while every action
 * waits. A result is taken once per start: nothing is answered from an older request's check
 * (each request's verdict is its own check's; a check is deterministic, `bounds.ts`, so it
 * is the same verdict either way). At most ISF_CHECKS_WAITING edits' checks wait for a place:
 * one more is refused at once (`IsfChecksBusy`, retryable), so a flood holds no more.
 * @module
 */
import { IsfChecksBusy, parseIsfApart } from "./apart.ts";
import { ISF_CHECKS_WAITING } from "./bounds.ts";
import { codeLengthRefusal, type IsfKind, type IsfResult } from "./parse.ts";

/**
 * How many started checks are kept for their turn at most: a check whose edit was refused
 * before its code was read is dropped, oldest first, past this.
 */
const KEPT = 16;

/**
 * Checks that run at once, at most; the others wait their turn (each can take a core for
 * seconds on a busy machine, and an edit's check is no longer held back by the order).
 */
export const ISF_CHECKS_AT_ONCE = 2;

interface Started {
  result: Promise<IsfResult>;
  /** Starts not yet taken. */
  untaken: number;
}

/** How many finished checks are kept for the output (`checked`), newest last. */
const DONE_KEPT = 16;

/** What a check takes besides its code and kind: the preset's own vertex shader, if any. */
export interface IsfCheckSource {
  readonly vertexCode?: string;
}

/** How a check is run (`parseIsfApart` by default). */
export type IsfCheckRun = (
  code: string,
  kind: IsfKind,
  source?: IsfCheckSource,
) => Promise<IsfResult>;

/** A check's key: its code, kind and vertex shader (none keeps the key of code alone). */
function checkId(code: string, kind: IsfKind, vertexCode: string | undefined): string {
  const id = `${kind}\u0000${code}`;
  return vertexCode === undefined ? id : `${id}\u0000vs\u0000${vertexCode}`;
}

/** Checks started ahead of their turn, by code and kind (and vertex shader). */
export class IsfCheckMemo {
  readonly #check: IsfCheckRun;
  readonly #started = new Map<string, Started>();
  readonly #done = new Map<string, IsfResult>();
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  /** `run` checks one code (the bounded check on its worker by default). */
  constructor(run: IsfCheckRun = parseIsfApart) {
    this.#check = run;
  }

  /**
   * Checks `code` once fewer than `ISF_CHECKS_AT_ONCE` run, in the order asked; an edit's
   * (`isBounded`) is refused at once when ISF_CHECKS_WAITING already wait, the output's waits.
   * @throws {IsfChecksBusy} for an edit's check past ISF_CHECKS_WAITING waiting
   */
  async #run(
    code: string,
    kind: IsfKind,
    { vertexCode, isBounded = true }: { vertexCode?: string | undefined; isBounded?: boolean } = {},
  ): Promise<IsfResult> {
    // Code (or a vertex shader) too long to check takes no place: its refusal needs no check.
    const tooLong = codeLengthRefusal(code, {}, vertexCode);
    if (tooLong) return tooLong;
    if (this.#running >= ISF_CHECKS_AT_ONCE) {
      if (isBounded && this.#waiting.length >= ISF_CHECKS_WAITING) {
        throw new IsfChecksBusy(this.#waiting.length);
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else this.#running++;
    try {
      const result = vertexCode === undefined
        ? await this.#check(code, kind)
        : await this.#check(code, kind, { vertexCode });
      const id = checkId(code, kind, vertexCode);
      this.#done.delete(id);
      this.#done.set(id, result);
      while (this.#done.size > DONE_KEPT) this.#done.delete(this.#done.keys().next().value!);
      return result;
    } finally {
      const next = this.#waiting.shift();
      if (next) next(); // its place passes on
      else this.#running--;
    }
  }

  /** Checks started and not yet taken (for tests). */
  get size(): number {
    return this.#started.size;
  }

  /**
   * Starts checking `code` as `kind` (with `vertexCode`, the preset's own vertex shader) for
   * a turn that will `take` it; resolves when done.
   */
  start(code: string, kind: IsfKind, { vertexCode }: IsfCheckSource = {}): Promise<void> {
    const id = checkId(code, kind, vertexCode);
    const known = this.#started.get(id);
    if (known) known.untaken++;
    else this.#started.set(id, { result: this.#run(code, kind, { vertexCode }), untaken: 1 });
    while (this.#started.size > KEPT) this.#started.delete(this.#started.keys().next().value!);
    return this.#started.get(id)!.result.then(() => {}, () => {});
  }

  /**
   * The result of checking `code` as `kind` for the output, which draws its capped sources
   * (`loop_cap.ts`): a check that ended lately (at once) or is under way (an edit's), else a
   * new one. It takes no edit's start.
   */
  checked(
    code: string,
    kind: IsfKind,
    { vertexCode }: IsfCheckSource = {},
  ): IsfResult | Promise<IsfResult> {
    const id = checkId(code, kind, vertexCode);
    const done = this.#done.get(id);
    // At once when it ended: the output draws an edit's code in the state that follows it.
    if (done) return structuredClone(done);
    const result = this.#started.get(id)?.result ??
      this.#run(code, kind, { vertexCode, isBounded: false });
    return result.then((r) => structuredClone(r));
  }

  /**
   * The result of checking `code` as `kind`: the check started for it, else a new one. Each
   * caller gets its own copy.
   */
  take(code: string, kind: IsfKind, { vertexCode }: IsfCheckSource = {}): Promise<IsfResult> {
    const id = checkId(code, kind, vertexCode);
    const known = this.#started.get(id);
    if (known && --known.untaken === 0) this.#started.delete(id);
    return (known?.result ?? this.#run(code, kind, { vertexCode }))
      .then((r) => structuredClone(r));
  }
}

/** The player's checks started ahead of their turn (one process, one memo). */
export const ISF_CHECKS: IsfCheckMemo = new IsfCheckMemo();

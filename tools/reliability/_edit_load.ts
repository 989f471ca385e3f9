/**
 * Edit load for the durability probes: clients stream `song.add` edits, each
 * with its own `Idempotency-Key` and a unique Song title, and retry the same
 * key on 202, 503, 504 and network errors until a definite answer (docs/api.md,
 * "Safe retries"). Afterwards `audit` tells, from the Songs found, which
 * acknowledged edits were lost, which keys were applied more than once, and
 * which edits answered with an error (or never definitely answered) were applied.
 * @module
 */
import { ANSWER_WITHIN_MS, type ServiceRun } from "./_harness.ts";
import type { Tally } from "./_tally.ts";

/** An edit waits for the player (playerTimeoutMs, 5 s) at most: answered within that plus 5 s. */
const EDIT_ANSWER_MS = 5000 + ANSWER_WITHIN_MS;
/** A key without a definite answer this long (paused time aside) is given up: a hang. */
const GIVE_UP_MS = 30_000;
/**
 * Answers after which the edit may or may not have been applied: retry the same key (202: an
 * answer that says the outcome is still coming, which a retry of the key returns once known).
 */
const RETRY_STATUSES = new Set([202, 503, 504]);
const READY_WITHIN_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A Song as the audit needs it. */
export interface SongTitle {
  id: string;
  title: string;
}

/** Waits until `/health` says the player is ready; false after 30 s. */
export async function waitReady(run: ServiceRun): Promise<boolean> {
  const deadline = performance.now() + READY_WITHIN_MS;
  while (performance.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${run.ports.http}/health`, {
        signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      });
      if ((await res.json()).ready === true) return true;
    } catch {
      // not up yet
    }
    await sleep(50);
  }
  return false;
}

/** The Songs of the demo Project as the service answers them (it may be restarting its player). */
export async function songsFromService(run: ServiceRun): Promise<SongTitle[]> {
  const deadline = performance.now() + READY_WITHIN_MS;
  let last = "";
  while (performance.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${run.ports.http}/api/v1/projects/demo/songs`, {
        signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      });
      const body = await res.json();
      if (res.status === 200) {
        return (body.songs as Array<{ songID: string; title: string }>)
          .map((s) => ({ id: s.songID, title: s.title }));
      }
      last = `${res.status} ${JSON.stringify(body).slice(0, 200)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`The Songs could not be read within ${READY_WITHIN_MS} ms: ${last}`);
}

/** The Songs of the demo Project in its `project.json` (the service down). */
export async function songsOnDisk(dataDir: string): Promise<SongTitle[]> {
  const project = JSON.parse(await Deno.readTextFile(`${dataDir}/projects/demo/project.json`));
  return (project.songs as SongTitle[]).map((s) => ({ id: s.id, title: s.title }));
}

/** What the Songs found say about the load. */
export interface Audit {
  /** Acknowledged Song ids not found. */
  missing: string[];
  /** Titles of the load found more than once, with how many times. */
  repeated: Array<[title: string, count: number]>;
  /** Extra copies: the sum over repeated titles of their count minus one. */
  duplicates: number;
  /** Titles of edits answered with an error (not 503/504) that were applied all the same. */
  refusedApplied: string[];
  /** Titles of edits given up without a definite answer that were applied. */
  unsettledApplied: string[];
}

/** Streams keyed `song.add` edits from a few clients until stopped or `limit` keys are sent. */
export class EditLoad {
  /** Acknowledged edits: created Song id, its title. */
  readonly acked: Map<string, string> = new Map();
  /** Keys sent (each once, perhaps retried). */
  sent = 0;
  /** Attempts beyond each key's first. */
  retries = 0;
  /** Attempts not answered within EDIT_ANSWER_MS (then retried). */
  unanswered = 0;
  /** Edits answered with an error other than 503/504, by title: the answer (`400 CODE`). */
  readonly refused: Map<string, string> = new Map();
  /** Edits given up without a definite answer, by title: the last answer or error. */
  readonly unsettled: Map<string, string> = new Map();
  /** Answers that made a client retry (`504 TIMEOUT`, `503 NOT_READY`), by kind. */
  readonly retryAnswers: Map<string, number> = new Map();
  #run: ServiceRun;
  #tally: Tally;
  #prefix: string;
  #limit: number;
  #everyMs: number;
  #isRunning = true;
  #gate: Promise<void> | null = null;
  #open: () => void = () => {};
  #clients: Promise<void>[];

  /**
   * Starts `clients` clients; titles are `<prefix> <n>`, keys `<prefix>-<n>` without spaces. Each
   * client starts a key at most every `everyMs` (default: as soon as the last one is answered).
   */
  constructor(
    run: ServiceRun,
    tally: Tally,
    options: { clients: number; prefix: string; limit?: number; everyMs?: number },
  ) {
    this.#run = run;
    this.#tally = tally;
    this.#prefix = options.prefix;
    this.#limit = options.limit ?? Infinity;
    this.#everyMs = options.everyMs ?? 0;
    this.#clients = Array.from({ length: options.clients }, () => this.#client());
  }

  /** Whether every key was sent (with a `limit`). */
  get isDone(): boolean {
    return this.sent >= this.#limit;
  }

  /** Holds every attempt not yet sent until `resume`. */
  pause(): void {
    this.#gate ??= new Promise((resolve) => (this.#open = resolve));
  }

  /** Resolves at once, or on `resume` while paused (for other writers that pause with the load). */
  async whenResumed(): Promise<void> {
    if (this.#gate) await this.#gate;
  }

  /** Lets attempts go again. */
  resume(): void {
    this.#gate = null;
    this.#open();
  }

  /** Resolves once the clients end: every key sent has its answer, and no more will be sent. */
  async finished(): Promise<void> {
    await Promise.all(this.#clients);
  }

  /** Sends no new key; resolves once every key sent has its answer. */
  async stop(): Promise<void> {
    this.#isRunning = false;
    this.resume();
    await this.finished();
  }

  /** Compares the Songs found with what was acknowledged and sent. */
  audit(songs: readonly SongTitle[]): Audit {
    const ids = new Set(songs.map((s) => s.id));
    const counts = new Map<string, number>();
    for (const { title } of songs) {
      if (title.startsWith(`${this.#prefix} `)) counts.set(title, (counts.get(title) ?? 0) + 1);
    }
    const repeated = [...counts].filter(([, n]) => n > 1);
    return {
      missing: [...this.acked.keys()].filter((id) => !ids.has(id)),
      repeated,
      duplicates: repeated.reduce((sum, [, n]) => sum + n - 1, 0),
      refusedApplied: [...this.refused.keys()].filter((title) => counts.has(title)),
      unsettledApplied: [...this.unsettled.keys()].filter((title) => counts.has(title)),
    };
  }

  async #client(): Promise<void> {
    while (this.#isRunning && this.sent < this.#limit) {
      const started = performance.now();
      const n = this.sent++;
      this.#tally.inputs++;
      await this.#send(`${this.#prefix.replaceAll(" ", "-")}-${n}`, `${this.#prefix} ${n}`);
      const wait = this.#everyMs - (performance.now() - started);
      if (wait > 0 && this.#isRunning) await sleep(wait);
    }
  }

  /** Sends one key until a definite answer, or gives up after GIVE_UP_MS of trying. */
  async #send(key: string, title: string): Promise<void> {
    const body = JSON.stringify({ name: "song.add", params: { title } });
    let left = GIVE_UP_MS;
    let last = "";
    for (let attempt = 0; left > 0; attempt++) {
      await this.whenResumed();
      if (attempt > 0) this.retries++;
      const started = performance.now();
      try {
        const res = await fetch(`http://127.0.0.1:${this.#run.ports.http}/api/v1/edit`, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": key },
          body,
          signal: AbortSignal.timeout(EDIT_ANSWER_MS),
        });
        const answer = await res.json();
        if (res.status === 200) {
          const id = answer.edits?.[0]?.created?.songID;
          if (typeof id === "string") this.acked.set(id, title);
          else {this.#tally.example(
              "answer",
              `200 without a created songID: ${JSON.stringify(answer)}`,
            );}
          return;
        }
        if (!RETRY_STATUSES.has(res.status)) {
          this.#tally.answer(
            res.status,
            answer.error?.code ?? null,
            "POST /api/v1/edit",
            () => key,
          );
          this.#tally.example(
            "refused",
            `${key}: ${res.status} ${JSON.stringify(answer).slice(0, 200)}`,
          );
          this.refused.set(title, `${res.status} ${answer.error?.code}`);
          return;
        }
        last = `${res.status} ${answer.error?.code}`;
        this.retryAnswers.set(last, (this.retryAnswers.get(last) ?? 0) + 1);
        await sleep(20); // the player restarts
      } catch (error) {
        last = (error as Error).message;
        if ((error as Error).name === "TimeoutError") this.unanswered++;
        // A service that died on its own is a crash (and started again); one the probe killed is not.
        else if (!(await this.#run.revive())) await sleep(50);
      }
      left -= performance.now() - started;
    }
    this.unsettled.set(title, last);
    this.#tally.hang(`POST /api/v1/edit ${key}: no definite answer in ${GIVE_UP_MS} ms (${last})`);
  }
}

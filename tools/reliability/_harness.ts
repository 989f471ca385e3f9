/**
 * A service under a probe, watched: its /health is asked every second on a
 * fresh connection from 127.0.0.1 (a miss within 5 s is a hang), asked and timed
 * on a thread of its own (`LocalClient`), never the probe's (a probe that floods
 * the service starves its own thread on a busy machine), its exit is
 * a crash, an unexpected exit of its player too, and the memory of both is
 * sampled. A probe may restart the service cleanly on the same data dir.
 * @module
 */
import { tempDir } from "./_children.ts";
import { requireFigures, SERVICE_FIGURES } from "./_figures.ts";
import { isRunning, playerPid, readMemory } from "./_proc.ts";
import { requestText } from "./_exchange.ts";
import { LocalClient } from "./_local_client.ts";
import { type ServiceOptions, ServiceProcess } from "./_service.ts";
import type { Tally } from "./_tally.ts";

/** The bound within which /health or a local request must be answered, ms. */
export const ANSWER_WITHIN_MS = 5000;
const WATCH_EVERY_MS = 1000;

/** Settings of the watched service. */
export type RunOptions = Omit<ServiceOptions, "dataDir"> & {
  /** Runs on the fresh data dir before the service first starts there (a mount over it). */
  prepare?: (dataDir: string) => Promise<void>;
};

/** A watched service for the length of one probe. */
export class ServiceRun {
  #tally: Tally;
  #options: RunOptions;
  #dir: { path: string; remove(): Promise<void> };
  #service: ServiceProcess;
  #isStopping = false;
  #isWatching = true;
  #watch: Promise<void>;
  #playerPid: number | null = null;
  #expectedPlayerExits = 0;
  #unexpectedPlayerExits = 0;
  #isHanging = false;
  #reviving: Promise<boolean> | null = null;
  #crashCounted = new WeakSet<ServiceProcess>();
  #local = new LocalClient();

  private constructor(
    tally: Tally,
    options: RunOptions,
    dir: { path: string; remove(): Promise<void> },
    svc: ServiceProcess,
  ) {
    this.#tally = tally;
    this.#options = options;
    this.#dir = dir;
    this.#service = svc;
    this.#watch = this.#watchLoop();
  }

  /**
   * Starts the service on a fresh temp data dir and watches it. The probe must then report what
   * the watch measures (`SERVICE_FIGURES`: both peak RSS, the local p99): one missing fails it.
   */
  static async start(tally: Tally, options: RunOptions = {}): Promise<ServiceRun> {
    requireFigures(tally, SERVICE_FIGURES);
    const dir = await tempDir("cueport-reliability-");
    try {
      await options.prepare?.(dir.path);
      const svc = await ServiceProcess.start({ ...options, dataDir: dir.path });
      return new ServiceRun(tally, options, dir, svc);
    } catch (error) {
      await dir.remove();
      throw error;
    }
  }

  /** The current service process. */
  get service(): ServiceProcess {
    return this.#service;
  }

  /**
   * The local client: requests from 127.0.0.1 run and timed on a thread that is not the
   * probe's (`timeLocal(tally, () => run.local.request(port, "GET", "/health"), ...)`).
   */
  get local(): LocalClient {
    return this.#local;
  }

  /** Its ports. */
  get ports(): { http: number; ws: number; osc: number } {
    return this.#service.ready.ports;
  }

  /** The data dir (removed by `finish`). */
  get dataDir(): string {
    return this.#dir.path;
  }

  /** The current player's pid, or null while none runs. */
  async playerPid(): Promise<number | null> {
    return await playerPid(this.#service.pid);
  }

  /** Tells the watchdog that the next `n` player exits are the probe's doing. */
  expectPlayerExits(n: number): void {
    this.#expectedPlayerExits += n;
  }

  /**
   * If the service died, counts the crash and starts it again, so a fuzzer
   * can go on; concurrent callers share one restart. Returns whether it had died.
   */
  revive(): Promise<boolean> {
    if (this.#service.isRunning || this.#isStopping) return Promise.resolve(false);
    this.#reviving ??= (async () => {
      this.#countCrash();
      this.#service = await ServiceProcess.start({ ...this.#options, dataDir: this.#dir.path });
      this.#playerPid = null;
      this.#reviving = null;
      return true;
    })();
    return this.#reviving;
  }

  /** Stops the service cleanly (SIGTERM) and starts it again on the same data dir. */
  async restart(extra: RunOptions = {}): Promise<void> {
    await this.#sample();
    this.#isStopping = true;
    if (this.#service.isRunning) await this.#stopNoting();
    else this.#countCrash();
    this.#service = await ServiceProcess.start({
      ...this.#options,
      ...extra,
      dataDir: this.#dir.path,
    });
    this.#playerPid = null;
    this.#isStopping = false;
  }

  /**
   * Power cut: SIGKILLs the service and its player (if one runs) at once,
   * waits until both are gone, runs `between` on the data dir at rest, then
   * starts the service again on it. Not counted as a crash.
   */
  async kill(between: () => Promise<void> = async () => {}): Promise<void> {
    await this.#sample();
    this.#isStopping = true;
    this.#crashCounted.add(this.#service); // the probe's doing
    const player = await this.playerPid();
    for (const pid of [this.#service.pid, player]) {
      try {
        if (pid !== null) Deno.kill(pid, "SIGKILL");
      } catch {
        // exited meanwhile
      }
    }
    await this.#service.exited;
    for (let tries = 0; player !== null && tries < 100 && (await isRunning(player)); tries++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await between();
    this.#service = await ServiceProcess.start({ ...this.#options, dataDir: this.#dir.path });
    this.#playerPid = null;
    this.#isStopping = false;
  }

  /**
   * Stops watching and the service, counts a crash if it had exited, removes the data dir;
   * `atRest` runs on the data dir between the stop and the removal (a copy of what it left).
   */
  async finish(atRest?: (dataDir: string) => Promise<void>): Promise<void> {
    await this.#sample();
    this.#isWatching = false;
    await this.#watch;
    this.#local.close();
    this.#isStopping = true;
    if (this.#service.isRunning) await this.#stopNoting();
    else this.#countCrash();
    try {
      await atRest?.(this.#dir.path);
    } finally {
      await this.#finishNoting();
    }
  }

  async #finishNoting(): Promise<void> {
    if (this.#unexpectedPlayerExits > 0) {
      this.#tally.playerRestarts += this.#unexpectedPlayerExits;
      this.#tally.note(`the player exited ${this.#unexpectedPlayerExits} time(s) on its own`);
    }
    await this.#dir.remove();
  }

  async #stopNoting(): Promise<void> {
    const code = await this.#service.stop();
    if (code !== 0) this.#tally.note(`a clean stop (SIGTERM) ended with exit code ${code}`);
  }

  #countCrash(): void {
    if (this.#crashCounted.has(this.#service)) return;
    this.#crashCounted.add(this.#service);
    const log = this.#service.stderrTail().trim().split("\n").slice(-3).join(" / ");
    this.#tally.crash(`service exited on its own; log: ${log}`);
  }

  async #watchLoop(): Promise<void> {
    while (this.#isWatching) {
      const started = performance.now();
      if (!this.#service.isRunning && !this.#isStopping) this.#countCrash();
      else if (!this.#isStopping) await Promise.all([this.#checkHealth(), this.#sample()]);
      const wait = WATCH_EVERY_MS - (performance.now() - started);
      if (wait > 0 && this.#isWatching) await new Promise((r) => setTimeout(r, wait));
    }
  }

  async #checkHealth(): Promise<void> {
    const svc = this.#service;
    const port = svc.ready.ports.http;
    // Never a pooled connection: an exhausted service cannot answer on one it accepted earlier.
    const answer = await this.#local.exchange({
      port,
      data: requestText("GET", "/health", { host: `127.0.0.1:${port}` }),
      answerWithinMs: ANSWER_WITHIN_MS,
      timeoutMs: ANSWER_WITHIN_MS,
    });
    if (svc !== this.#service || !svc.isRunning || this.#isStopping) return;
    const isAnswered = answer.status !== null;
    if (isAnswered) this.#tally.localMs.push(answer.ms);
    if (!isAnswered && !this.#isHanging) {
      const why = answer.connectError ?? (answer.isTimedOut ? "no answer" : "closed unanswered");
      this.#tally.hang(`GET /health from 127.0.0.1: ${why} within ${ANSWER_WITHIN_MS} ms`);
    }
    this.#isHanging = !isAnswered;
  }

  async #sample(): Promise<void> {
    const svc = this.#service;
    if (!svc.isRunning) return;
    const player = await playerPid(svc.pid);
    if (player !== null && this.#playerPid !== null && player !== this.#playerPid) {
      if (this.#expectedPlayerExits > 0) this.#expectedPlayerExits--;
      else this.#unexpectedPlayerExits++;
    }
    if (player !== null && svc === this.#service) this.#playerPid = player;
    const memory = await readMemory(player === null ? [svc.pid] : [svc.pid, player]);
    this.#tally.memory.record("service", memory.get(svc.pid));
    if (player !== null) this.#tally.memory.record("player", memory.get(player));
  }
}

/**
 * Runs `body` against a watched service and finishes it, whatever happens.
 * @example
 * ```ts
 * await withService(tally, { args: ["--http-rate", "50"] }, async (run) => {
 *   await fetch(`http://127.0.0.1:${run.ports.http}/health`);
 * });
 * ```
 */
export async function withService(
  tally: Tally,
  options: RunOptions,
  body: (run: ServiceRun) => Promise<void>,
): Promise<void> {
  const run = await ServiceRun.start(tally, options);
  try {
    await body(run);
  } finally {
    await run.finish();
  }
}

/**
 * Starts the real service as a subprocess, the way `tools/testing/service_process.ts`
 * does: `deno run` with the permission and V8 flags of `deno task start` (the
 * ones the compiled binary embeds), a data dir, `--host 127.0.0.1` and free ports, then
 * reads its ready line. The probes' own start: it can also restart on the same data dir and
 * lower the open-files limit; the tests' one shares its flags and its wait for the player.
 * @module
 */

import { track } from "./_children.ts";
import { SERVICE_FLAGS as SERVICE_FLAGS_LIST } from "../../server/deploy/permissions.ts";

const ROOT = new URL("../../", import.meta.url);

/** `main.ts` of this repository, as a path. */
export const MAIN_PATH: string = new URL("main.ts", ROOT).pathname;

/**
 * The runtime flags of `deno task start` and `deno task compile`: the permissions and V8 flags
 * the binary embeds (the peak RSS figures depend on the young generation's size), from their
 * one list in `server/deploy/permissions.ts`.
 */
export const SERVICE_FLAGS: string[] = [...SERVICE_FLAGS_LIST];

/** The line the service prints when it is ready (README, "Start"). */
export interface ReadyLine {
  event: "ready";
  ports: { http: number; ws: number; osc: number };
  pid: number;
  dataDir: string;
  playerReady: boolean;
}

/** How to start the service. */
export interface ServiceOptions {
  /** The data dir (kept; the caller removes it). */
  dataDir: string;
  /** Extra command-line arguments (settings). */
  args?: readonly string[];
  /** Lower the open-files limit (soft and hard) of the service and its player. */
  openFiles?: number;
}

/**
 * A hang guard on the service's ready line, not a target: on a machine kept busy (load 50, the
 * suite beside stress-ng and other runs) a start took over 30 s, the limit before.
 */
const READY_WITHIN_MS = 120_000;
const STDERR_TAIL = 32 * 1024;

/** A running service process. */
export class ServiceProcess {
  /** The ready line. */
  readonly ready: ReadyLine;
  /** Resolves with the exit status, whoever ended the process. */
  readonly exited: Promise<Deno.CommandStatus>;
  #child: Deno.ChildProcess;
  #stderr: { text: string; lines: number };
  #isRunning = true;

  private constructor(
    child: Deno.ChildProcess,
    ready: ReadyLine,
    stderr: { text: string; lines: number },
  ) {
    this.#child = child;
    this.ready = ready;
    this.#stderr = stderr;
    this.exited = child.status.then((status) => {
      this.#isRunning = false;
      return status;
    });
  }

  /** Starts `main.ts` on `options.dataDir` and waits for its ready line. */
  static async start(options: ServiceOptions): Promise<ServiceProcess> {
    const denoArgs = [
      "run",
      ...SERVICE_FLAGS,
      MAIN_PATH,
      ...["--data-dir", options.dataDir, "--host", "127.0.0.1"],
      ...["--http-port", "0", "--ws-port", "0", "--osc-port", "0", "--osc-query-port", "0"],
      ...["--legacy-http-port", "off", "--legacy-ws-port", "off"],
      ...["--log-level", "warn", "--mdns", "off", "--output", "none"],
      // Never the fixed 5004/5005 of network MIDI (rtpmidid, parallel runs): a probe that
      // fuzzes MIDI gives a free pair in `args`, whose `--midi-port` comes last and wins.
      ...["--midi-port", "off"],
      ...(options.args ?? []),
    ];
    // `exec` keeps the pid: the ready line's pid is the process we watch and signal.
    const [program, args] = options.openFiles === undefined
      ? [Deno.execPath(), denoArgs]
      : ["bash", [
        "-c",
        `ulimit -n ${options.openFiles} && exec "$0" "$@"`,
        Deno.execPath(),
        ...denoArgs,
      ]];
    const child = new Deno.Command(program, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { RUST_BACKTRACE: "0" },
    }).spawn();
    track(child);
    const stderr = { text: "", lines: 0 };
    void (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
        stderr.lines += chunk.split("\n").length - 1;
        stderr.text = (stderr.text + chunk).slice(-STDERR_TAIL);
      }
    })().catch(() => {});
    const line = await readyLine(child.stdout, READY_WITHIN_MS).catch(async (error) => {
      try {
        child.kill("SIGKILL");
      } catch {
        // gone already
      }
      await child.status;
      throw new Error(`${(error as Error).message}: ${stderr.text.slice(-2000)}`);
    });
    const ready = JSON.parse(line) as ReadyLine;
    if (!ready.playerReady) {
      let hasExited = false;
      void child.status.then(() => hasExited = true);
      await untilPlayerReady(ready.ports.http, () => !hasExited).catch(async (error) => {
        if (!hasExited) child.kill("SIGKILL");
        await child.status;
        throw new Error(`${(error as Error).message}: ${stderr.text.slice(-2000)}`);
      });
    }
    return new ServiceProcess(child, ready, stderr);
  }

  /** The service's pid. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Whether the process has not exited. */
  get isRunning(): boolean {
    return this.#isRunning;
  }

  /** The last 32 KiB of the service's log (stderr), without terminal colours. */
  stderrTail(): string {
    // deno-lint-ignore no-control-regex
    return this.#stderr.text.replace(/\x1b\[[0-9;]*m/g, "");
  }

  /** Lines the service has logged (stderr) since it started, all of them counted. */
  get stderrLines(): number {
    return this.#stderr.lines;
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  async stop(graceMs = 10_000): Promise<number> {
    this.#signal("SIGTERM");
    const timer = setTimeout(() => this.#signal("SIGKILL"), graceMs);
    const status = await this.exited;
    clearTimeout(timer);
    return status.code;
  }

  /** Sends a signal if the process still runs. */
  #signal(signal: Deno.Signal): void {
    try {
      if (this.#isRunning) this.#child.kill(signal);
    } catch {
      // exited meanwhile
    }
  }
}

/** How long a start may wait for a player the ready line said was not ready yet: a hang guard. */
const PLAYER_READY_GUARD_MS = 300_000;

/**
 * Waits until `GET /health` on `httpPort` says the player is ready (`ready: true`). The ready line
 * comes at most 15 s after the ports are bound, with `playerReady: false` when the player is still
 * starting (on a busy machine the first start's demo Project takes longer): the API answers 503
 * `NOT_READY` until then (README, "Start"), so a caller that needs the player waits here, asking
 * every 100 ms. Throws when `isRunning()` turns false or after a 5-minute hang guard.
 */
export async function untilPlayerReady(
  httpPort: number,
  isRunning: () => boolean,
): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < PLAYER_READY_GUARD_MS) {
    if (!isRunning()) throw new Error("The service exited before its player was ready");
    const answer = await fetch(`http://127.0.0.1:${httpPort}/health`).catch(() => null);
    const body = await answer?.json().catch(() => null);
    if (body?.ready === true) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `The player was not ready ${PLAYER_READY_GUARD_MS / 1000} s after the ready line`,
  );
}

/** The first line on `stdout`; the rest is drained so the service never blocks writing. */
async function readyLine(stdout: ReadableStream<Uint8Array>, withinMs: number): Promise<string> {
  const reader = stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`No ready line within ${withinMs} ms`)),
      withinMs,
    );
  });
  try {
    while (!text.includes("\n")) {
      const { value, done } = await Promise.race([reader.read(), timeout]);
      if (done) throw new Error("The service exited before its ready line");
      text += value;
    }
  } finally {
    clearTimeout(timer);
  }
  void (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return text.slice(0, text.indexOf("\n"));
}

/**
 * What the `load` probe reads each second under load: `GET /health` (timed:
 * its p99 is the probe's local figure; the body holds the output's frames and
 * the player's restarts), `appState.output`, and the output browser's pid
 * among the player's children, so a browser restart is seen even where
 * `/health` does not count it.
 * @module
 */
import { ANSWER_WITHIN_MS, type ServiceRun } from "./_harness.ts";
import { appState } from "./_load_recording.ts";
import type { Tally } from "./_tally.ts";

const decoder = new TextDecoder();

/** The GET /health body now, or null when not answered within 5 s. */
export async function healthNow(port: number): Promise<Record<string, unknown> | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, {
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    return await res.json();
  } catch {
    return null;
  }
}

/** `output.framesDrawn` of a /health body, or null where it has none. */
export function framesDrawnOf(health: unknown): number | null {
  const output = (health as { output?: { framesDrawn?: unknown } } | null)?.output;
  return typeof output?.framesDrawn === "number" ? output.framesDrawn : null;
}

/** The pids of the browsers (Chromium, Chrome, Edge) among the children of `parent`. */
export async function browserPids(parent: number): Promise<number[]> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "pid=,comm=", "--ppid", String(parent)],
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  if (!out) return [];
  return decoder.decode(out.stdout).split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => /chrom|msedge/i.test(comm ?? ""))
    .map(([pid]) => Number(pid));
}

/** Reads the service every `everyMs` until stopped. */
export class LoadSampler {
  /** The /health bodies answered. */
  readonly health: unknown[] = [];
  /** `appState.output` of each app state read (undefined where it has none). */
  readonly appOutput: unknown[] = [];
  /** /health round trips, ms. */
  readonly healthMs: number[] = [];
  /** Every output browser pid seen. */
  readonly browsers: Set<number> = new Set();
  #isRunning = true;
  #loop: Promise<void>;

  /** Starts reading `run`'s service; /health round trips count in the row's local p99 too. */
  constructor(run: ServiceRun, tally: Tally, everyMs = 1000) {
    this.#loop = (async () => {
      while (this.#isRunning) {
        const started = performance.now();
        const port = run.ports.http;
        const body = await healthNow(port);
        const ms = performance.now() - started;
        if (body !== null) {
          this.health.push(body);
          this.healthMs.push(ms);
          tally.localMs.push(ms);
        }
        const state = await appState(port);
        if (state !== null) this.appOutput.push(state.output);
        const player = await run.playerPid();
        if (player !== null) {
          for (const pid of await browserPids(player)) this.browsers.add(pid);
        }
        const wait = everyMs - (performance.now() - started);
        if (wait > 0 && this.#isRunning) await new Promise((r) => setTimeout(r, wait));
      }
    })();
  }

  /** Stops reading. */
  async stop(): Promise<void> {
    this.#isRunning = false;
    await this.#loop;
  }
}

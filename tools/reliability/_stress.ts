/**
 * CPU contention for the `load` probe: Debian's `stress-ng` with more busy
 * processes than cores (`--cpu 2 x cores + 2`), at the same priority as the
 * show. It stops on `stop()`, on an interrupted run, and by its own
 * `--timeout` in any case, so its workers never outlive the probe for long.
 * @module
 */
import { onKill } from "./_children.ts";
import { findPeer } from "../peers.ts";
import { NotRun } from "./_types.ts";

/** The cores of this machine, as the runtime sees them. */
export function cores(): number {
  return navigator.hardwareConcurrency;
}

/** The busy processes for `cores` cores: twice as many, and two more (6 on 2 cores). */
export function busyProcesses(coreCount: number): number {
  return 2 * coreCount + 2;
}

/** stress-ng's arguments: `busy` CPU workers for at most `seconds`. */
export function stressArgs(busy: number, seconds: number): string[] {
  return ["--cpu", String(busy), "--timeout", `${Math.ceil(seconds)}s`, "--quiet"];
}

/**
 * The 1-minute load average (`/proc/loadavg`, through `cat`: Deno asks for --allow-all to read
 * /proc itself), or null where there is none.
 */
export async function loadAverage(): Promise<number | null> {
  const out = await new Deno.Command("cat", {
    args: ["/proc/loadavg"],
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  const value = out?.success ? Number(new TextDecoder().decode(out.stdout).split(" ")[0]) : NaN;
  return Number.isFinite(value) ? value : null;
}

/** A running stress-ng. */
export class Stress {
  /** Its busy processes. */
  readonly busy: number;
  #child: Deno.ChildProcess;
  #forget: () => void;

  private constructor(child: Deno.ChildProcess, busy: number) {
    this.#child = child;
    this.busy = busy;
    // SIGTERM (not SIGKILL) so that stress-ng ends its workers too.
    this.#forget = onKill(() => this.#signal("SIGTERM"));
  }

  /**
   * Starts `busyProcesses(cores())` CPU workers for at most `seconds`; throws `NotRun` where
   * stress-ng is not installed (tools/peers.ts).
   */
  static start(seconds: number): Stress {
    const path = findPeer("stress-ng");
    if (path === undefined) {
      throw new NotRun("stress-ng not found (Debian: apt-get install stress-ng; tools/peers.ts)");
    }
    const busy = busyProcesses(cores());
    const child = new Deno.Command(path, {
      args: stressArgs(busy, seconds),
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    return new Stress(child, busy);
  }

  /** Stops the workers and waits for stress-ng to exit. */
  async stop(): Promise<void> {
    this.#signal("SIGTERM");
    await this.#child.status;
    this.#forget();
  }

  #signal(signal: Deno.Signal): void {
    try {
      this.#child.kill(signal);
    } catch {
      // exited already (its timeout)
    }
  }
}

/**
 * Reading other processes on Linux: memory from `/proc/<pid>/status` and
 * children from `ps`. Both go through a subprocess (`cat`, `ps`) because
 * Deno asks for --allow-all to read another process's /proc entry itself.
 * @module
 */

const decoder = new TextDecoder();

/** Resident memory of one process, kB: now (VmRSS) and its high-water mark (VmHWM). */
export interface MemoryKb {
  rss: number;
  hwm: number;
}

/** VmRSS and VmHWM of each pid still alive (one `cat` for all of them). */
export async function readMemory(pids: readonly number[]): Promise<Map<number, MemoryKb>> {
  const found = new Map<number, MemoryKb>();
  if (pids.length === 0) return found;
  // `cat` goes on past a file that vanished (a process that just exited) and prints the others.
  const out = await new Deno.Command("cat", {
    args: pids.map((pid) => `/proc/${pid}/status`),
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  if (!out) return found;
  let current: MemoryKb = { rss: 0, hwm: 0 };
  for (const line of decoder.decode(out.stdout).split("\n")) {
    const [key, value] = line.split(":\t");
    if (key === "Pid") {
      current = { rss: 0, hwm: 0 };
      found.set(Number(value), current);
    } else if (key === "VmRSS") current.rss = parseInt(value ?? "0");
    else if (key === "VmHWM") current.hwm = parseInt(value ?? "0");
  }
  return found;
}

/** The pid of the bundled player among the children of `parent`, or null. */
export async function playerPid(parent: number): Promise<number | null> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "pid=,args=", "--ppid", String(parent)],
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  if (!out) return null;
  // The word `player` is an argument of the player's process (docs/player-protocol.md).
  const line = decoder.decode(out.stdout).split("\n").find((l) => /\splayer(\s|$)/.test(l));
  return line ? Number(line.trim().split(/\s+/)[0]) : null;
}

/**
 * Peak resident memory of a set of processes over time: the largest VmHWM
 * seen for each role ("service", "player"). VmHWM is the kernel's own peak,
 * so a spike between two samples is not missed; only the last moments of a
 * process killed between samples are.
 */
export class PeakMemory {
  #peaks = new Map<string, number>();
  #last = new Map<string, number>();

  /** Records the memory of `pid` under `role`. */
  record(role: string, memory: MemoryKb | undefined): void {
    if (!memory) return;
    this.#peaks.set(role, Math.max(this.#peaks.get(role) ?? 0, memory.hwm, memory.rss));
    this.#last.set(role, memory.rss);
  }

  /** The last RSS sampled of a role in MB (a spike or a level: compare with the peak), or null. */
  lastMb(role: string): number | null {
    const kb = this.#last.get(role);
    return kb === undefined ? null : Math.round(kb / 1024);
  }

  /** Peak of a role in MB, or null if never sampled. */
  peakMb(role: string): number | null {
    const kb = this.#peaks.get(role);
    return kb === undefined ? null : Math.round(kb / 1024);
  }
}

/** Whether `pid` still runs; a zombie (killed, not yet reaped) does not. */
export async function isRunning(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  const stat = out ? decoder.decode(out.stdout).trim() : "";
  return stat !== "" && !stat.startsWith("Z");
}

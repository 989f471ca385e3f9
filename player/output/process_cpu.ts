/**
 * The CPU time a process and its descendants used, from Linux's `/proc`: a browser that
 * starts slowly on a busy machine is still working (its CPU time grows), one that is stuck
 * is not. Elsewhere (or where `/proc` cannot be read, even through `cat`) it is unknown
 * (null).
 * @module
 */

/** Clock ticks a second of `/proc/<pid>/stat`'s times (`getconf CLK_TCK`: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** `[ppid, utime + stime in ticks]` from a `/proc/<pid>/stat` line (its name may hold spaces). */
function parseStat(text: string): [number, number] | null {
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // After the name: state (0), ppid (1), ..., utime (11), stime (12).
  const ppid = Number(fields[1]), utime = Number(fields[11]), stime = Number(fields[12]);
  return Number.isFinite(ppid + utime + stime) ? [ppid, utime + stime] : null;
}

/** Each process's `[ppid, ticks]`, by pid, from the text of `/proc/<pid>/stat` files. */
function parseStats(text: string): Map<number, [number, number]> {
  const stats = new Map<number, [number, number]>();
  for (const line of text.split("\n")) {
    const pid = parseInt(line);
    const stat = Number.isFinite(pid) ? parseStat(line) : null;
    if (stat) stats.set(pid, stat);
  }
  return stats;
}

/**
 * The player reads `/proc` through `cat`: Deno lets a program read another process's files
 * there only with every permission (`--allow-all`), which the player does not have. The last
 * reading is kept (at most one runs at a time); each call asks for the next, so a caller
 * polling every second sees figures a second old, null until the first has come.
 */
class ProcReader {
  #stats: Map<number, [number, number]> | null = null;
  /** The 1-minute load average of the last reading (`/proc/loadavg`'s first figure). */
  load: number | null = null;
  #isReading = false;

  /** The last reading, and the next one started. */
  stats(): Map<number, [number, number]> | null {
    if (!this.#isReading) {
      this.#isReading = true;
      new Deno.Command("sh", {
        args: ["-c", "cat /proc/loadavg /proc/[0-9]*/stat 2>/dev/null"],
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).output().then(
        ({ stdout }) => {
          const text = new TextDecoder().decode(stdout);
          const load = Number(text.slice(0, text.indexOf(" ")));
          this.load = Number.isFinite(load) ? load : null;
          this.#stats = parseStats(text.slice(text.indexOf("\n") + 1));
        },
        () => {}, // no sh here: unknown
      ).finally(() => this.#isReading = false);
    }
    return this.#stats;
  }
}

const PROC = new ProcReader();

/** Every process's `[ppid, ticks]`, read at once when this program may, else through `cat`. */
function allStats(): Map<number, [number, number]> | null {
  const stats = new Map<number, [number, number]>();
  try {
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      try {
        const stat = parseStat(Deno.readTextFileSync(`/proc/${entry.name}/stat`));
        if (stat) stats.set(Number(entry.name), stat);
      } catch {
        // exited meanwhile
      }
    }
  } catch {
    return PROC.stats(); // not ours to read (NotCapable): through `cat`
  }
  return stats;
}

/** CPU ms used by `pid` and every process under it, or null when `/proc` cannot say. */
export function processTreeCpuMs(pid: number): number | null {
  if (Deno.build.os !== "linux") return null;
  const stats = allStats();
  if (!stats?.has(pid)) return null;
  let ticks = 0;
  for (const [id, [, used]] of stats) {
    for (let at: number | undefined = id; at !== undefined && at > 1; at = stats.get(at)?.[0]) {
      if (at !== pid) continue;
      ticks += used;
      break;
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/**
 * The machine's 1-minute load average as last read with the CPU times (`/proc/loadavg`, through
 * `cat` as they are), or null when unknown (outside Linux, before the first reading).
 */
export function loadAverage(): number | null {
  if (Deno.build.os !== "linux") return null;
  try {
    const load = Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
    return Number.isFinite(load) ? load : null;
  } catch {
    return PROC.load; // not ours to read (NotCapable): as `cat` last read it
  }
}

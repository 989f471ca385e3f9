/**
 * The CPU time a process and its descendants used, from Linux's `/proc`: a browser that
 * starts slowly on a busy machine is still working (its CPU time grows), one that is stuck
 * is not. Elsewhere (or without read access to `/proc`) it is unknown (null).
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

/** CPU ms used by `pid` and every process under it, or null when `/proc` cannot say. */
export function processTreeCpuMs(pid: number): number | null {
  if (Deno.build.os !== "linux") return null;
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
    return null;
  }
  if (!stats.has(pid)) return null;
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

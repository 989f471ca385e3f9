/**
 * CPU time of other processes on Linux, from `/proc/<pid>/stat` (through `cat`: Deno asks for
 * --allow-all to read another process's `/proc` entry): the work a process did, which a busy
 * machine stretches in wall-clock time but not in CPU time.
 * @module
 */
import { descendants } from "./_process_tree.ts";

/** Clock ticks a second of `/proc/<pid>/stat`'s times (`getconf CLK_TCK`: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** The summed utime and stime of `/proc/<pid>/stat` lines, ms; null for a line it cannot read. */
export function statCpuMs(text: string): number | null {
  let ticks = 0;
  for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
    // After the name (which may hold spaces): state (0), ppid (1), ..., utime (11), stime (12).
    const fields = line.slice(line.lastIndexOf(")") + 2).split(" ");
    const used = Number(fields[11]) + Number(fields[12]);
    if (!Number.isFinite(used)) return null;
    ticks += used;
  }
  return Math.round(ticks * 1000 / TICKS_PER_SECOND);
}

/**
 * The summed CPU time of `pids`, ms; null when a pid is missing or none of the files can be read
 * (a process that exited meanwhile is left out).
 */
export async function cpuMsOf(pids: readonly (number | null)[]): Promise<number | null> {
  if (pids.length === 0 || pids.some((pid) => pid === null)) return null;
  const out = await new Deno.Command("cat", {
    args: pids.map((pid) => `/proc/${pid}/stat`),
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  const text = out ? new TextDecoder().decode(out.stdout) : "";
  return text.trim() === "" ? null : statCpuMs(text);
}

/** The CPU time of the processes under `root` (`root` excluded), ms; null when none. */
export async function descendantsCpuMs(root: number): Promise<number | null> {
  return await cpuMsOf((await descendants(root)).map((row) => row.pid));
}

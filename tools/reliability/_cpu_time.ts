/**
 * CPU time of other processes on Linux, from `/proc/<pid>/stat`, and the machine's idle time,
 * from `/proc/stat` (through `cat`: Deno asks for --allow-all to read them): the work a process
 * did, which a busy machine stretches in wall-clock time but not in CPU time.
 * @module
 */
import { descendants } from "./_process_tree.ts";

/** Clock ticks a second of `/proc/<pid>/stat`'s times (`getconf CLK_TCK`: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** The text of the files at `paths` as `cat` gives it (what it cannot read is left out). */
async function catText(paths: readonly string[]): Promise<string> {
  if (paths.length === 0) return "";
  const out = await new Deno.Command("cat", { args: [...paths], stdout: "piped", stderr: "null" })
    .output().catch(() => null);
  return out ? new TextDecoder().decode(out.stdout) : "";
}

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
  const text = await catText(pids.map((pid) => `/proc/${pid}/stat`));
  return text.trim() === "" ? null : statCpuMs(text);
}

/** The CPUs of a `Cpus_allowed_list` (`0-1,4`), or null for a list it cannot read. */
export function cpuList(text: string): number[] | null {
  const cpus: number[] = [];
  for (const part of text.trim().split(",")) {
    const [from, to = from] = part.split("-").map(Number);
    if (!Number.isInteger(from) || !Number.isInteger(to) || to! < from!) return null;
    for (let cpu = from!; cpu <= to!; cpu++) cpus.push(cpu);
  }
  return cpus;
}

/**
 * The idle and iowait time of the CPUs `cpus` in `/proc/stat`'s text, ms; null when one is not
 * there.
 */
export function idleMsOf(stat: string, cpus: readonly number[]): number | null {
  let ticks = 0;
  for (const cpu of cpus) {
    const fields = new RegExp(`^cpu${cpu} +(.*)$`, "m").exec(stat)?.[1]?.split(/ +/).map(Number);
    const [idle, iowait] = [fields?.[3], fields?.[4]];
    if (!Number.isFinite(idle) || !Number.isFinite(iowait)) return null;
    ticks += idle! + iowait!;
  }
  return Math.round(ticks * 1000 / TICKS_PER_SECOND);
}

/**
 * The time the CPUs this process may run on lay idle since boot, ms (`/proc/stat`, idle and
 * iowait, of the CPUs of `Cpus_allowed_list` in `/proc/self/status`, read by `cat`, which runs
 * where this process does: those the processes it starts run on too, and the ones
 * `navigator.hardwareConcurrency` counts); null where it cannot be read.
 */
export async function machineIdleMs(): Promise<number | null> {
  const [stat, status] = await Promise.all([
    catText(["/proc/stat"]),
    catText(["/proc/self/status"]),
  ]);
  const allowed = /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1];
  const cpus = allowed === undefined ? null : cpuList(allowed);
  return cpus === null || cpus.length === 0 ? null : idleMsOf(stat, cpus);
}

/** Each `/proc/<pid>/stat` line's utime and stime, ms, by pid; lines it cannot read are left out. */
export function statCpuMsByPid(text: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const line of text.split("\n")) {
    const pid = parseInt(line);
    const ms = Number.isInteger(pid) ? statCpuMs(line) : null;
    if (ms !== null) byPid.set(pid, ms);
  }
  return byPid;
}

/**
 * The CPU time the processes under a root ever used, ms, read again and again: each process's
 * last reading is kept once it exits (a browser the player killed and started again keeps its
 * work in the total, and the new one adds all of its own), so the total never goes back; it
 * only misses what an exited process used after its last reading.
 */
export class DescendantsCpu {
  readonly #root: number;
  #byPid = new Map<number, number>();

  constructor(root: number) {
    this.#root = root;
  }

  /** The total now, ms; null when no process under the root could be read yet. */
  async read(): Promise<number | null> {
    const pids = (await descendants(this.#root)).map((row) => row.pid);
    const now = statCpuMsByPid(await catText(pids.map((pid) => `/proc/${pid}/stat`)));
    for (const [pid, ms] of now) this.#byPid.set(pid, Math.max(ms, this.#byPid.get(pid) ?? 0));
    if (this.#byPid.size === 0) return null;
    let total = 0;
    for (const ms of this.#byPid.values()) total += ms;
    return total;
  }
}

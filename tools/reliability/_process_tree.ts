/**
 * What the output probes read of the machine: the processes under a pid (the
 * player's browser and its helpers, whatever wrapper starts them), their
 * command lines, and the TCP sockets listening on it with the pids that own
 * them. Read through `sh` as `_proc.ts` does (Deno asks for --allow-all to
 * read another process's /proc entry itself).
 * @module
 */

const decoder = new TextDecoder();

/** Runs a POSIX shell script; its stdout, or "" when it could not run. */
export async function shell(script: string, args: readonly string[] = []): Promise<string> {
  const out = await new Deno.Command("sh", {
    args: ["-c", script, "sh", ...args],
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  return out ? decoder.decode(out.stdout) : "";
}

/** One process: pid, parent, command name and whole command line. */
export interface ProcessRow {
  pid: number;
  ppid: number;
  comm: string;
  args: string;
}

/** Every process of the machine. */
export async function processes(): Promise<ProcessRow[]> {
  const text = await shell("ps -e -o pid=,ppid=,comm=,args= -ww");
  return text.split("\n").flatMap((line) => {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    return m ? [{ pid: Number(m[1]), ppid: Number(m[2]), comm: m[3]!, args: m[4]! }] : [];
  });
}

/** The processes under `root` (children, theirs...), `root` excluded. */
export async function descendants(root: number): Promise<ProcessRow[]> {
  const all = await processes();
  const found: ProcessRow[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}

/** Whether a process is a browser's (Chromium, Chrome, Edge, their helpers). */
export function isBrowser(row: ProcessRow): boolean {
  return /chrom|msedge|headless_shell/i.test(row.comm);
}

/** The browser processes under the player `player`. */
export async function browserProcesses(player: number): Promise<ProcessRow[]> {
  return (await descendants(player)).filter(isBrowser);
}

/** The `--user-data-dir` of the browser processes given (the profile dirs), distinct. */
export function profileDirs(rows: readonly ProcessRow[]): string[] {
  const dirs = rows.flatMap((r) => /--user-data-dir=(\S+)/.exec(r.args)?.[1] ?? []);
  return [...new Set(dirs)];
}

/**
 * Summed proportional set size (PSS) of `pids`, MB (those that exited count 0): what they take
 * of the machine's memory together. Summed RSS counts each page shared by Chromium's processes
 * (its code, shared memory between the GPU process and the renderer) once per process; PSS
 * shares each page among the processes that map it.
 */
export async function summedPssMb(pids: readonly number[]): Promise<number> {
  if (pids.length === 0) return 0;
  const text = await shell(
    'for p in "$@"; do grep -s "^Pss:" /proc/$p/smaps_rollup; done',
    pids.map(String),
  );
  const kb = text.split("\n").reduce(
    (sum, line) => sum + (parseInt(line.split(/\s+/)[1] ?? "") || 0),
    0,
  );
  return Math.round(kb / 1024);
}

/** A TCP socket listening on this machine. */
export interface Listener {
  /** `127.0.0.1`, `0.0.0.0`, `::1`, `::`... */
  address: string;
  port: number;
  /** The socket's inode (matches `socket:[inode]` among a process's fds). */
  inode: number;
  /** The uid that opened it. */
  uid: number;
}

/** The listening TCP sockets of `/proc/net/tcp` and `tcp6` (readable by any account). */
export function listeners(text: { tcp: string; tcp6: string }): Listener[] {
  const rows: Listener[] = [];
  for (const [body, isV6] of [[text.tcp, false], [text.tcp6, true]] as const) {
    for (const line of body.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] !== "0A") continue; // LISTEN
      const [hex, portHex] = (f[1] ?? "").split(":");
      rows.push({
        address: isV6 ? v6Address(hex ?? "") : v4Address(hex ?? ""),
        port: parseInt(portHex ?? "0", 16),
        inode: Number(f[9]),
        uid: Number(f[7]),
      });
    }
  }
  return rows;
}

function v4Address(hex: string): string {
  const bytes = (hex.match(/../g) ?? []).map((b) => parseInt(b, 16)).reverse();
  return bytes.join(".");
}

function v6Address(hex: string): string {
  if (/^0+$/.test(hex)) return "::";
  if (hex === "00000000000000000000000001000000") return "::1";
  if (/^0000000000000000FFFF0000/i.test(hex)) return `::ffff:${v4Address(hex.slice(24))}`;
  return `v6:${hex}`;
}

/** The listening TCP sockets now. */
export async function listeningNow(): Promise<Listener[]> {
  // /proc/net is /proc/self/net, which Deno reads only with --allow-all.
  const read = (path: string) => shell('cat "$1"', [path]);
  return listeners({ tcp: await read("/proc/net/tcp"), tcp6: await read("/proc/net/tcp6") });
}

/** The socket inodes among the open files of `pids`. */
export async function socketInodes(pids: readonly number[]): Promise<Set<number>> {
  if (pids.length === 0) return new Set();
  const text = await shell(
    'for p in "$@"; do for f in /proc/$p/fd/*; do readlink "$f"; done; done 2>/dev/null',
    pids.map(String),
  );
  return new Set([...text.matchAll(/socket:\[(\d+)\]/g)].map((m) => Number(m[1])));
}

/**
 * The service started through `deno task start` or `npx deno task start` has
 * launchers above it (`npm exec`, its `sh -c`, `deno task`) that do not pass
 * a SIGTERM on: killing the one a script started (`$!`) would leave the
 * service running, holding every port. The service finds those launchers when
 * it starts and stops cleanly once one of them is gone. A service started by
 * systemd, launchd, a shell or the compiled binary has none, and is not watched.
 * @module
 */

/** A process above the service. */
export interface Ancestor {
  pid: number;
  ppid: number;
  /** Its command line. */
  args: string;
}

const DENO_TASK = /(^|[\/\\])deno(\.exe)?\s+task(\s|$)/;
const NPM = /^(npm exec|npx)(\s|$)|(^|[\/\\\s])(npm|npx)(-cli\.js)?\s+(exec|x)?/;
const SHELL_C = /^(\S*[\/\\])?(sh|bash|dash)\s+-c\s/;

/**
 * The launchers among `chain` (the parent first, then its parent...): the
 * ones from the parent up that are `deno task`, npm's exec or a `sh -c`
 * between them; none unless one is `deno task` or npm's.
 */
export function launchersOf(chain: readonly Ancestor[]): Ancestor[] {
  const launchers: Ancestor[] = [];
  for (const ancestor of chain) {
    if (ancestor.pid <= 1) break;
    const { args } = ancestor;
    if (!DENO_TASK.test(args) && !NPM.test(args) && !SHELL_C.test(args)) break;
    launchers.push(ancestor);
  }
  // Trailing shells belong to whoever started the launchers, not to them.
  while (launchers.length > 0 && SHELL_C.test(launchers.at(-1)!.args)) launchers.pop();
  return launchers;
}

/** This process's ancestors, the parent first, read from `ps`; empty where it cannot run. */
export async function ancestors(pid: number = Deno.pid): Promise<Ancestor[]> {
  if (Deno.build.os === "windows") return [];
  let text: string;
  try {
    const out = await new Deno.Command("ps", {
      args: ["-A", "-o", "pid=,ppid=,args="],
      stdout: "piped",
      stderr: "null",
    }).output();
    if (!out.success) return [];
    text = new TextDecoder().decode(out.stdout);
  } catch {
    return []; // no ps: not watched
  }
  const all = new Map<number, Ancestor>();
  for (const line of text.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (match) all.set(Number(match[1]), { pid: +match[1]!, ppid: +match[2]!, args: match[3]! });
  }
  const chain: Ancestor[] = [];
  let current = all.get(pid);
  while (current && current.ppid > 1 && chain.length < 32) {
    const parent = all.get(current.ppid);
    if (!parent) break;
    chain.push(parent);
    current = parent;
  }
  return chain;
}

/** True while the process exists (signal 0: nothing is sent). */
export function isAlive(pid: number): boolean {
  try {
    Deno.kill(pid, 0 as unknown as Deno.Signal);
    return true;
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound); // EPERM: it exists, as another user's
  }
}

/** A running watch; `stop()` ends it. */
export interface LauncherWatch {
  stop(): void;
}

/**
 * Checks every `intervalMs` that each launcher is still there and still this
 * process's parent chain; calls `onGone` once with the first that is not.
 */
export function watchLaunchers(
  launchers: readonly Ancestor[],
  onGone: (launcher: Ancestor) => void,
  options: { intervalMs?: number; alive?: (pid: number) => boolean; ppid?: () => number } = {},
): LauncherWatch {
  const alive = options.alive ?? isAlive;
  const ppid = options.ppid ?? (() => Deno.ppid);
  const timer = setInterval(() => {
    const gone = launchers.find((l, i) => !alive(l.pid) || (i === 0 && ppid() !== l.pid));
    if (gone) {
      clearInterval(timer);
      onGone(gone);
    }
  }, options.intervalMs ?? 1000);
  Deno.unrefTimer(timer);
  return { stop: () => clearInterval(timer) };
}

/** The launcher's command, short enough for a log line. */
export function describeLauncher(launcher: Ancestor): string {
  const [program = "", ...rest] = launcher.args.split(/\s+/);
  const words = [program.split(/[\/\\]/).at(-1), ...rest.slice(0, 2)].join(" ");
  return `${words}${rest.length > 2 ? " ..." : ""} (pid ${launcher.pid})`;
}

/**
 * Network namespaces of our own (`ip netns`, veth pairs) for the probes that
 * need a machine with several interfaces: a service namespace linked to one
 * client namespace per subnet, nothing added to the machine's own namespace,
 * and every namespace removed afterwards (an interrupted run removes them too,
 * `_children.ts`). Needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN) and `ip`.
 * @module
 */
import { onKill, track } from "./_children.ts";

/** One subnet between the service namespace and a client namespace. */
export interface Subnet {
  /** The client namespace's name. */
  ns: string;
  /** The service's address on it (its interface in the service namespace). */
  service: string;
  /** The client addresses, all on the client namespace's interface. */
  clients: string[];
}

/** The namespaces made for one probe. */
export interface Topology {
  /** The service's namespace (it holds one interface per subnet, and its own loopback). */
  ns: string;
  subnets: Subnet[];
  /**
   * Removes the namespaces (their veths go with them); what could not be removed, one line
   * each (the probe reports it as a shortfall: a namespace left on the machine).
   */
  remove(): Promise<string[]>;
}

/** Runs `ip args` (no shell): whether it succeeded, and what it said (stderr, else stdout). */
export type Ip = (args: string[]) => Promise<{ ok: boolean; text: string }>;

/** The `Ip` of the machine: the `ip` command. */
const ip: Ip = async (args) => {
  const out = await new Deno.Command("ip", { args, stdout: "piped", stderr: "piped" }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
  return { ok: out.success, text: decode(out.stderr) || decode(out.stdout) };
};

/** Runs `ip args`; throws with its message when it fails. */
async function mustIp(args: string[]): Promise<void> {
  const { ok, text } = await ip(args);
  if (!ok) throw new Error(`ip ${args.join(" ")}: ${text}`);
}

/**
 * Why namespaces cannot be made here (not root, no `ip`), or null when they can
 * (a namespace is made and removed to be sure).
 */
export async function namespacesUnavailable(): Promise<string | null> {
  if (Deno.build.os !== "linux") return `network namespaces are Linux only (${Deno.build.os})`;
  if (Deno.uid() !== 0) return `making network namespaces needs root (uid ${Deno.uid()})`;
  const name = `cueport-check-${Deno.pid}`;
  // An interrupt between the add and the del removes it too.
  const forget = onKill(() => removeSync([name]));
  try {
    const made = await ip(["netns", "add", name]);
    if (!made.ok) return `ip netns add failed: ${made.text}`;
    const [failed] = await removeNamespaces([name]);
    return failed === undefined ? null : `a namespace made cannot be removed: ${failed}`;
  } catch (error) {
    return `cannot run ip: ${(error as Error).message}`;
  } finally {
    forget();
  }
}

/**
 * Removes namespaces `names` (first ending what still runs in each, `killInside`); returns what
 * could not be removed, one line each, empty when all are gone. `run`: the `ip` command (tests).
 */
export async function removeNamespaces(names: readonly string[], run: Ip = ip): Promise<string[]> {
  const failed: string[] = [];
  for (const ns of names) {
    killInside(ns, (await run(["netns", "pids", ns])).text);
    const { ok, text } = await run(["netns", "del", ns]);
    if (!ok) failed.push(`ip netns del ${ns}: ${text}`);
  }
  return failed;
}

/**
 * Makes the service namespace and one client namespace per subnet
 * (`10.53.N.1/24` for the service, `10.53.N.2` and up for the clients), each
 * pair joined by a veth made inside the namespaces (`<prefix>` names them).
 * On failure, whatever was made is removed.
 */
export async function makeTopology(
  prefix: string,
  subnets: number,
  clientsEach: number,
): Promise<Topology> {
  const made: string[] = [];
  const forget = onKill(() => removeSync(made));
  const topology: Topology = {
    ns: `${prefix}-svc`,
    subnets: [],
    remove() {
      forget();
      return removeNamespaces(made);
    },
  };
  try {
    await mustIp(["netns", "add", topology.ns]);
    made.push(topology.ns);
    await mustIp(["-n", topology.ns, "link", "set", "lo", "up"]);
    for (let n = 1; n <= subnets; n++) {
      const subnet: Subnet = {
        ns: `${prefix}-c${n}`,
        service: `10.53.${n}.1`,
        clients: Array.from({ length: clientsEach }, (_, i) => `10.53.${n}.${i + 2}`),
      };
      await mustIp(["netns", "add", subnet.ns]);
      made.push(subnet.ns);
      // Interface names: at most 15 characters, unique within each namespace.
      const [inside, outside] = [`svc${n}`, `cli${n}`];
      await mustIp([
        ...["-n", topology.ns, "link", "add", inside, "type", "veth"],
        ...["peer", "name", outside, "netns", subnet.ns],
      ]);
      await mustIp(["-n", topology.ns, "addr", "add", `${subnet.service}/24`, "dev", inside]);
      await mustIp(["-n", topology.ns, "link", "set", inside, "up"]);
      for (const address of subnet.clients) {
        await mustIp(["-n", subnet.ns, "addr", "add", `${address}/24`, "dev", outside]);
      }
      await mustIp(["-n", subnet.ns, "link", "set", outside, "up"]);
      await mustIp(["-n", subnet.ns, "link", "set", "lo", "up"]);
      topology.subnets.push(subnet);
    }
    return topology;
  } catch (error) {
    const left = await topology.remove();
    if (left.length > 0) (error as Error).message += `; not removed: ${left.join("; ")}`;
    throw error;
  }
}

/**
 * SIGKILLs the processes still in namespace `ns` (`pids`: the output of `ip netns pids`): a
 * service left there by an interrupted run would keep the namespace alive after `netns del`.
 */
function killInside(ns: string, pids: string): void {
  for (const pid of pids.split(/\s+/).filter((p) => /^\d+$/.test(p))) {
    try {
      Deno.kill(Number(pid), "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  if (pids.trim() !== "") console.error(`[reliability] ended what was left in ${ns}: ${pids}`);
}

function removeSync(names: readonly string[]): void {
  for (const ns of names) {
    try {
      const pids = new Deno.Command("ip", { args: ["netns", "pids", ns], stderr: "null" })
        .outputSync();
      killInside(ns, new TextDecoder().decode(pids.stdout));
      new Deno.Command("ip", { args: ["netns", "del", ns], stderr: "null" }).outputSync();
    } catch {
      // gone already
    }
  }
}

/**
 * Starts `deno run <flags> <script> <args>` inside namespace `ns`, with the
 * permissions of `deno task reliability`; stdout piped (the script's JSON),
 * stderr passed on.
 */
export function denoIn(ns: string, script: URL, args: string[]): Deno.ChildProcess {
  const child = new Deno.Command("ip", {
    args: [
      ...["netns", "exec", ns, Deno.execPath(), "run"],
      ...["--allow-net", "--allow-read", "--allow-write", "--allow-env", "--allow-run"],
      ...["--allow-sys", script.pathname, ...args],
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
    env: { RUST_BACKTRACE: "0" },
  }).spawn();
  track(child);
  return child;
}

/**
 * The JSON a script started with `denoIn` printed as its last line; throws if it failed, or
 * if it has not exited within `deadlineMs` (it is killed then: a hung script cannot hang the run).
 */
export async function jsonOf<T>(
  child: Deno.ChildProcess,
  what: string,
  deadlineMs: number,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // exited meanwhile
      }
      reject(new Error(`${what} did not finish within ${deadlineMs / 1000} s (killed)`));
    }, deadlineMs);
  });
  const done = Promise.all([child.status, new Response(child.stdout).text()]);
  done.catch(() => {}); // after the deadline, nobody reads it
  const [status, stdout] = await Promise.race([done, late]).finally(() => clearTimeout(timer));
  const last = stdout.trim().split("\n").pop() ?? "";
  if (!status.success || !last.startsWith("{")) {
    throw new Error(`${what} exited with code ${status.code}: ${stdout.slice(-500)}`);
  }
  return JSON.parse(last) as T;
}

/**
 * Three etcd members and the rigs of a group, each in a network namespace of
 * its own (a machine), all linked by veth pairs to a bridge in one more
 * namespace (the switch): nothing is added to the machine's own namespace,
 * and every namespace goes at the end (`remove`), also when a test fails, and
 * at the next start when a run was killed. As root, with Debian's
 * `etcd-server` (`tools/peers.ts`); `clusterUnavailable()` says why not.
 * The members run as issue 46 measured them: `--pre-vote
 * --heartbeat-interval=50 --election-timeout=500`.
 * @module
 */
import assert from "node:assert/strict";
import { findPeer } from "../peers.ts";
import { removeNamespaces } from "../reliability/_netns.ts";
import type { GroupStatus } from "../../protocol/rigs.ts";
import { needs } from "./peers.ts";
import type { RelayAnswer } from "./rig_relay.ts";
import { SERVICE_FLAGS } from "./service_process.ts";
import { untilProgress } from "./until.ts";

/** The names of this run's namespaces start so (`cprig<pid>x<n>-`): a later run removes strays. */
const PREFIX = "cprig";
/** Clusters made by this process so far: test files run in parallel share its pid. */
let made = 0;
const SUBNET = "10.46.0";
const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const RELAY = new URL("./rig_relay.ts", import.meta.url).pathname;

/** One namespace on the switch: its name and address. */
export interface Host {
  ns: string;
  address: string;
  /** Its veth's end on the switch's bridge. */
  link: string;
}

/** A rig (a service process) in its namespace. */
export interface Rig extends Host {
  name: string;
  child: Deno.ChildProcess;
  httpPort: number;
  /** Its data dir (kept when it is stopped: `startRig` with `host` and `dataDir` restarts it). */
  dataDir: string;
  /** GET `path` on the rig's HTTP port, from inside its namespace; null when it does not answer. */
  get(path: string): Promise<Record<string, unknown> | null>;
  /** POSTs JSON `body` to `path` from inside its namespace: the status (0: no answer) and JSON. */
  post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Everything the rig wrote to stderr so far. */
  stderr(): string;
  /** Runs `cueport <args> --http-port <its port>` in its namespace: exit code and stdout. */
  cli(args: string[]): Promise<{ code: number; stdout: string }>;
}

/**
 * Why the cluster cannot be made here (not root, no `ip`, no etcd), or null when it can.
 */
export async function clusterUnavailable(): Promise<string | null> {
  if (Deno.build.os !== "linux") return `network namespaces are Linux only (${Deno.build.os})`;
  // The tests run with the service's permissions, which do not read the uid: `id` tells it.
  const uid = await textOf("id", ["-u"]);
  if (uid !== "0") return `making network namespaces needs root (uid ${uid})`;
  if (findPeer("etcd") === undefined) return "etcd is not installed (Debian: etcd-server)";
  if (findPeer("curl") === undefined) return "curl is not installed";
  if (findPeer("ps") === undefined) return "ps is not installed (Debian: procps)";
  if (findPeer("ip") === undefined) return "ip is not installed (Debian: iproute2)";
  return null;
}

/**
 * The options every cluster test file shares: skipped (after one line on stderr naming `file`)
 * when the cluster cannot be made: not root; root without etcd unless the peers are required (CI).
 */
export async function clusterTestOptions(
  file: string,
): Promise<{ ignore: boolean; sanitizeResources: false; sanitizeOps: false }> {
  const unavailable = await clusterUnavailable();
  if (unavailable !== null) console.error(`rigs ${file} skipped: ${unavailable}`);
  const ignore = unavailable !== null &&
    (!unavailable.includes("installed") || needs("etcd").ignore);
  return { ignore, sanitizeResources: false, sanitizeOps: false };
}

/**
 * Runs `fn` with a cluster of three members and two rigs of group `group` (`rig-a`, `rig-b`, each
 * started with `options`), then removes it all, asserting every namespace went.
 */
export async function withTwoRigs(
  group: string,
  options: Parameters<EtcdCluster["startRig"]>[2],
  fn: (cluster: EtcdCluster, a: Rig, b: Rig) => Promise<void>,
): Promise<void> {
  const cluster = await EtcdCluster.start();
  try {
    const [a, b] = await Promise.all([
      cluster.startRig("rig-a", group, options),
      cluster.startRig("rig-b", group, options),
    ]);
    await fn(cluster, a, b);
  } finally {
    const left = await cluster.remove();
    assert.deepEqual(left, [], "every namespace removed");
  }
}

/**
 * Polls `read` until `check` holds, for as long as each read answers (60 s without an answer
 * fails, with the last value read).
 */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  check: (value: T) => boolean,
): Promise<T> {
  let polls = 0;
  let last: T | undefined;
  await untilProgress(what, async () => {
    polls++;
    last = await read();
    return check(last);
  }, { progress: () => polls, noProgressMs: 60_000 }).catch((error) => {
    throw new Error(`${error.message}; last ${JSON.stringify(last).slice(0, 400)}`);
  });
  return last as T;
}

/**
 * Waits until `check` holds for `rig`'s `GET /api/v1/group`, for as long as the rig keeps
 * answering something (`noProgressMs` without an answer fails, naming the last status).
 */
export async function waitForStatus(
  rig: Rig,
  what: string,
  check: (s: GroupStatus) => boolean,
  noProgressMs = 30_000,
): Promise<GroupStatus> {
  let polls = 0;
  let last: GroupStatus | null = null;
  await untilProgress(`${rig.name}: ${what}`, async () => {
    polls++;
    last = await rig.get("/api/v1/group") as GroupStatus | null;
    return last !== null && check(last);
  }, { progress: () => polls, noProgressMs }).catch((error) => {
    throw new Error(`${error.message}; last status ${JSON.stringify(last)}; ${rig.stderr()}`);
  });
  return last! as GroupStatus;
}

/** Waits until `rig` sees `members` rigs and a leader, and can edit. */
export function untilSettled(rig: Rig, members: number): Promise<GroupStatus> {
  return waitForStatus(
    rig,
    `sees ${members} rigs`,
    (s) => s.canEdit && s.leader !== null && s.members.length === members,
    60_000,
  );
}

/**
 * Uploads the file at `path` as `name` to Project `show` on `rig` (a raw body, with curl inside
 * its namespace): the HTTP status (0: no answer) and the JSON answered.
 */
export async function uploadTo(
  rig: Rig,
  path: string,
  name: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = `http://127.0.0.1:${rig.httpPort}/api/v1/files/upload?projectID=show&name=${name}`;
  const out = await new Deno.Command("ip", {
    args: [
      ...["netns", "exec", rig.ns, "curl", "-s", "--max-time", "70", "-w", "\n%{http_code}"],
      ...["-H", "content-type: application/octet-stream", "--data-binary", `@${path}`, url],
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  return statusAndJson(new TextDecoder().decode(out.stdout));
}

/** curl's output with `-w "\n%{http_code}"`: the status (0: no answer) and the JSON ({} if none). */
function statusAndJson(text: string): { status: number; body: Record<string, unknown> } {
  const cut = text.lastIndexOf("\n");
  const status = Number(text.slice(cut + 1)) || 0;
  try {
    return { status, body: JSON.parse(text.slice(0, cut)) };
  } catch {
    return { status, body: {} };
  }
}

/**
 * A client process in a rig's namespace (`rig_relay.ts`): many requests at once over one
 * process. A request whose relay died (its namespace killed) or that got no answer is answered
 * with status 0.
 */
export class RigRelay {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #waiting = new Map<number, (answer: RelayAnswer) => void>();
  readonly #done: Promise<void>;
  #next = 0;

  /** Starts a relay to `rig`'s HTTP port, inside its namespace. */
  constructor(rig: Rig) {
    this.#child = new Deno.Command("ip", {
      args: [
        ...["netns", "exec", rig.ns, Deno.execPath(), "run", "--allow-net", RELAY],
        String(rig.httpPort),
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#done = this.#read();
  }

  /** GET `path` (POST `body` when given, with `headers`): the rig's answer, or status 0 for none. */
  request(path: string, body?: unknown, headers?: Record<string, string>): Promise<RelayAnswer> {
    const id = this.#next++;
    const answered = new Promise<RelayAnswer>((resolve) => this.#waiting.set(id, resolve));
    const line = new TextEncoder().encode(`${JSON.stringify({ id, path, body, headers })}\n`);
    this.#writer.write(line).catch(() => this.#answer({ id, status: 0, body: {} }));
    return answered;
  }

  /** Ends the relay (its stdin closed); unanswered requests get status 0. */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // gone already
    }
    await this.#done;
  }

  #answer(answer: RelayAnswer): void {
    this.#waiting.get(answer.id)?.(answer);
    this.#waiting.delete(answer.id);
  }

  async #read(): Promise<void> {
    let text = "";
    try {
      for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
        text += chunk;
        const lines = text.split("\n");
        text = lines.pop()!;
        for (const line of lines) this.#answer(JSON.parse(line) as RelayAnswer);
      }
    } catch {
      // the relay was killed mid-line
    }
    await this.#child.status;
    for (const id of [...this.#waiting.keys()]) this.#answer({ id, status: 0, body: {} });
  }
}

/** What `command args` printed, trimmed; "" when it cannot run. */
async function textOf(command: string, args: string[]): Promise<string> {
  try {
    const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "null" }).output();
    return new TextDecoder().decode(out.stdout).trim();
  } catch {
    return "";
  }
}

/** Runs `ip args`; throws with its message when it fails. */
async function ip(...args: string[]): Promise<void> {
  const out = await new Deno.Command("ip", { args, stdout: "null", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`ip ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
}

/** Removes the namespaces of runs whose process is gone (killed before their `remove`). */
async function removeStrays(): Promise<void> {
  const listed = await textOf("ip", ["netns", "list"]);
  const strays: string[] = [];
  for (const name of listed.split("\n").map((line) => line.split(" ")[0]!)) {
    const pid = name.match(new RegExp(`^${PREFIX}(\\d+)x\\d+-`))?.[1];
    // `ps -p`, not /proc: the tests' permissions do not read /proc.
    if (pid !== undefined && !(await isRunning(pid))) strays.push(name);
  }
  await removeNamespaces(strays);
}

/** Whether process `pid` runs (`ps -p`). */
async function isRunning(pid: string): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-p", pid], stdout: "null", stderr: "null" })
    .output();
  return out.success;
}

/** The switch, the three members, and the rigs started on it. */
export class EtcdCluster {
  readonly #made: string[] = [];
  readonly #members = new Map<string, { host: Host; child: Deno.ChildProcess }>();
  readonly #rigs: Rig[] = [];
  readonly #dataDir: string;
  readonly #name = `${PREFIX}${Deno.pid}x${++made}`;
  readonly #switch = `${this.#name}-sw`;
  #next = 1;

  private constructor(dataDir: string) {
    this.#dataDir = dataDir;
  }

  /** Makes the switch and three members, and waits until they have a leader. */
  static async start(): Promise<EtcdCluster> {
    await removeStrays();
    const cluster = new EtcdCluster(await Deno.makeTempDir({ prefix: "cueport-etcd-" }));
    try {
      await cluster.#makeSwitch();
      const hosts = [];
      for (const name of ["e1", "e2", "e3"]) hosts.push(await cluster.#addHost(name));
      const initial = hosts.map((h, i) => `e${i + 1}=http://${h.address}:2380`).join(",");
      hosts.forEach((host, i) => cluster.#startMember(`e${i + 1}`, host, initial));
      await cluster.#waitHealthy(hosts[0]!);
      return cluster;
    } catch (error) {
      await cluster.remove();
      throw error;
    }
  }

  /** The members' client URLs (the setting groupEndpoints). */
  get endpoints(): string[] {
    return [...this.#members.values()].map(({ host }) => `http://${host.address}:2379`);
  }

  /** The rigs started so far. */
  get rigs(): readonly Rig[] {
    return this.#rigs;
  }

  /**
   * Starts a rig named `name` of group `group` in a namespace of its own, with
   * `endpoints` (default every member's) and `args` added (`alone`: no group); resolves once it
   * is ready.
   */
  async startRig(
    name: string,
    group: string,
    options: {
      endpoints?: string[];
      args?: string[];
      host?: Host;
      dataDir?: string;
      prepare?: (dataDir: string) => Promise<void>;
      /** Started without a group: a Cueport alone, on the switch beside the rigs (benches). */
      alone?: boolean;
    } = {},
  ): Promise<Rig> {
    const host = options.host ?? await this.#addHost(name);
    const dataDir = options.dataDir ??
      await Deno.makeTempDir({ dir: this.#dataDir, prefix: `${name}-` });
    await options.prepare?.(dataDir); // a Project written before the rig starts
    const child = new Deno.Command("ip", {
      args: [
        ...["netns", "exec", host.ns, Deno.execPath(), "run", ...SERVICE_FLAGS, MAIN],
        ...["--data-dir", dataDir, "--host", "127.0.0.1", "--http-port", "0", "--ws-port", "0"],
        ...["--osc-port", "0", "--osc-query-port", "0", "--legacy-http-port", "off"],
        ...["--legacy-ws-port", "off", "--midi-port", "off", "--mdns", "off", "--output", "none"],
        ...(options.alone ? [] : [
          ...["--group", group, "--rig-name", name, "--group-endpoints"],
          (options.endpoints ?? this.endpoints).join(","),
        ]),
        ...(options.args ?? []),
      ],
      stdout: "piped",
      stderr: "piped",
      env: { RUST_BACKTRACE: "0" },
    }).spawn();
    let errText = "";
    void (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) errText += chunk;
    })().catch(() => {});
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`Rig ${name} exited before ready: ${errText}`);
      out += value;
    }
    void (async () => {
      while (!(await reader.read()).done) { /* drained */ }
    })().catch(() => {});
    const httpPort = JSON.parse(out.slice(0, out.indexOf("\n"))).ports.http as number;
    const rig: Rig = {
      ...host,
      name,
      child,
      httpPort,
      dataDir,
      get: (path) => nsGet(host.ns, `http://127.0.0.1:${httpPort}${path}`),
      post: (path, body) => nsPost(host.ns, `http://127.0.0.1:${httpPort}${path}`, body),
      stderr: () => errText,
      async cli(args) {
        const out = await new Deno.Command("ip", {
          args: [
            ...["netns", "exec", host.ns, Deno.execPath(), "run", ...SERVICE_FLAGS, MAIN],
            ...args,
            ...["--data-dir", dataDir, "--http-port", String(httpPort)],
          ],
          stdout: "piped",
          stderr: "null",
          env: { RUST_BACKTRACE: "0" },
        }).output();
        return { code: out.code, stdout: new TextDecoder().decode(out.stdout) };
      },
    };
    this.#rigs.push(rig);
    return rig;
  }

  /** Kills member `name` (`kill -9`) and takes its link down: a machine that died. */
  async killMember(name: string): Promise<void> {
    const member = this.#members.get(name);
    if (!member) throw new Error(`No member ${name}`);
    member.child.kill("SIGKILL");
    await member.child.status;
    await this.linkDown(member.host);
  }

  /** Kills every process in the namespace of `rig` (`kill -9`), its link down: a rig that died. */
  async killRig(rig: Rig): Promise<void> {
    await this.linkDown(rig);
    await killInside(rig.ns);
    await rig.child.status;
  }

  /** Stops `rig`'s service and player (`kill -9`), its namespace and data dir kept for a restart. */
  async stopRig(rig: Rig): Promise<void> {
    await killInside(rig.ns);
    await rig.child.status;
  }

  /**
   * The keys and values under `prefix`, read from member `via` (default the first) with etcd's
   * JSON gateway, from inside its namespace; values as text.
   */
  async range(prefix: string, via = "e1"): Promise<Array<{ key: string; value: string }>> {
    const { host } = this.#members.get(via)!;
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    const answer = await nsPost(host.ns, `http://${host.address}:2379/v3/kv/range`, {
      key: btoa(prefix),
      range_end: btoa(end),
    });
    const kvs = (answer.body.kvs ?? []) as Array<{ key: string; value?: string }>;
    const text = (b64: string) =>
      new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
    return kvs.map((kv) => ({ key: text(kv.key), value: text(kv.value ?? "") }));
  }

  /** Takes `host`'s link to the switch down: it runs on, cut off from everything (a partition). */
  linkDown(host: Host): Promise<void> {
    return ip("-n", this.#switch, "link", "set", host.link, "down");
  }

  /** Brings `host`'s link back up (the partition heals). */
  linkUp(host: Host): Promise<void> {
    return ip("-n", this.#switch, "link", "set", host.link, "up");
  }

  /** Ends every process and removes every namespace and the data dirs; what failed, one line each. */
  async remove(): Promise<string[]> {
    for (const rig of this.#rigs) {
      try {
        rig.child.kill("SIGKILL");
      } catch {
        // gone already
      }
    }
    for (const { child } of this.#members.values()) {
      try {
        child.kill("SIGKILL");
      } catch {
        // gone already
      }
    }
    for (const ns of this.#made) await killInside(ns); // the rigs' players too, quietly
    const failed = await removeNamespaces([...this.#made].reverse());
    this.#made.length = 0;
    await Promise.allSettled([...this.#rigs, ...this.#members.values()].map((p) => p.child.status));
    await Deno.remove(this.#dataDir, { recursive: true }).catch(() => {});
    return failed;
  }

  async #makeSwitch(): Promise<void> {
    await ip("netns", "add", this.#switch);
    this.#made.push(this.#switch);
    await ip("-n", this.#switch, "link", "add", "br0", "type", "bridge");
    await ip("-n", this.#switch, "link", "set", "br0", "up");
  }

  /** A namespace `<prefix>-<name>` on the switch: `eth0` inside, `v-<name>` on the bridge. */
  async #addHost(name: string): Promise<Host> {
    const ns = `${this.#name}-${name}`;
    const host = { ns, address: `${SUBNET}.${this.#next++}`, link: `v-${name}` };
    await ip("netns", "add", ns);
    this.#made.push(ns);
    const outside = host.link;
    await ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", outside);
    await ip("-n", ns, "link", "set", outside, "netns", this.#switch);
    await ip("-n", this.#switch, "link", "set", outside, "master", "br0");
    await ip("-n", this.#switch, "link", "set", outside, "up");
    await ip("-n", ns, "addr", "add", `${host.address}/24`, "dev", "eth0");
    await ip("-n", ns, "link", "set", "eth0", "up");
    await ip("-n", ns, "link", "set", "lo", "up");
    return host;
  }

  #startMember(name: string, host: Host, initial: string): void {
    const url = (port: number) => `http://${host.address}:${port}`;
    const child = new Deno.Command("ip", {
      args: [
        ...["netns", "exec", host.ns, findPeer("etcd")!, "--name", name],
        ...["--data-dir", `${this.#dataDir}/${name}`, "--listen-client-urls", url(2379)],
        ...["--advertise-client-urls", url(2379), "--listen-peer-urls", url(2380)],
        ...["--initial-advertise-peer-urls", url(2380), "--initial-cluster", initial],
        ...["--initial-cluster-state", "new", "--initial-cluster-token", this.#switch],
        ...["--pre-vote", "--heartbeat-interval=50", "--election-timeout=500"],
        ...["--auto-compaction-mode=periodic", "--auto-compaction-retention=1h"], // docs/rigs.md
        ...["--logger", "zap", "--log-level", "error"],
      ],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    this.#members.set(name, { host, child });
  }

  /** Waits until `host`'s member answers that the cluster is healthy (a leader, a quorum). */
  async #waitHealthy(host: Host): Promise<void> {
    for (let i = 0; i < 300; i++) {
      const health = await nsGet(host.ns, `http://${host.address}:2379/health`);
      if (health?.health === "true") return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("The etcd members did not become healthy (30 s)");
  }
}

/** SIGKILLs every process in namespace `ns`. */
async function killInside(ns: string): Promise<void> {
  for (const pid of (await textOf("ip", ["netns", "pids", ns])).split(/\s+/).filter(Boolean)) {
    try {
      Deno.kill(Number(pid), "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

/** GET `url` with curl inside namespace `ns`: the JSON it answered, or null. */
async function nsGet(ns: string, url: string): Promise<Record<string, unknown> | null> {
  const out = await new Deno.Command("ip", {
    args: ["netns", "exec", ns, "curl", "-s", "--max-time", "5", url],
    stdout: "piped",
    stderr: "null",
  }).output();
  try {
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } catch {
    return null;
  }
}

/** POST JSON `body` to `url` with curl inside namespace `ns`: the status and the JSON answered. */
async function nsPost(
  ns: string,
  url: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const out = await new Deno.Command("ip", {
    args: [
      ...[
        "netns",
        "exec",
        ns,
        "curl",
        "-s",
        "--max-time",
        "70",
        "-H",
        "content-type: application/json",
      ],
      ...["--data-binary", JSON.stringify(body), "-w", "\n%{http_code}", url],
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  return statusAndJson(new TextDecoder().decode(out.stdout));
}

/** One etcd member on the loopback (no namespace, no root): for the client's own tests. */
export interface LoopbackEtcd {
  /** Its client URL. */
  url: string;
  /** Kills it and removes its data dir. */
  stop(): Promise<void>;
}

/** Starts one etcd member on free loopback ports; resolves once it answers healthy. */
export async function startLoopbackEtcd(): Promise<LoopbackEtcd> {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-etcd-" });
  const [client, peer] = [freePort(), freePort()];
  const url = `http://127.0.0.1:${client}`;
  const child = new Deno.Command(findPeer("etcd")!, {
    args: [
      ...["--name", "solo", "--data-dir", `${dataDir}/solo`, "--listen-client-urls", url],
      ...["--advertise-client-urls", url, "--listen-peer-urls", `http://127.0.0.1:${peer}`],
      ...["--initial-advertise-peer-urls", `http://127.0.0.1:${peer}`],
      ...["--initial-cluster", `solo=http://127.0.0.1:${peer}`, "--logger", "zap"],
      ...["--log-level", "error"],
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // gone already
    }
    await child.status;
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  };
  for (let i = 0; i < 300; i++) {
    const health = await fetch(`${url}/health`).then((r) => r.json()).catch(() => null);
    if (health?.health === "true") return { url, stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error("The loopback etcd did not become healthy (15 s)");
}

/** A loopback port free now. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

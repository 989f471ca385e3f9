/**
 * The one list of the programs from outside the project that the tests and
 * the benches run against (the real peers), with the Debian package of each
 * and why it is needed. `deno task test` (`tools/test.ts`) installs the
 * missing ones on Debian or Ubuntu as root and names them elsewhere; a test
 * that needs a missing peer is skipped (`tools/testing/peers.ts`), unless
 * `CUEPORT_TEST_PEERS=required` (CI), where absence fails.
 * @module
 */

/** A program the tests run, and where it comes from. */
export interface Peer {
  /** The command, as looked up on PATH (the first of `commands` found). */
  readonly name: string;
  /** The names it goes by, in order of preference (Chromium has several). */
  readonly commands: readonly string[];
  /** Debian's package that provides it. */
  readonly debian: string;
  /** What the tests use it for (and the version they need, when it matters). */
  readonly why: string;
  /**
   * Why the program found at `path` does not fit (too old, a companion program missing), or
   * null when it does; a peer that does not fit counts as missing.
   */
  readonly unfit?: (path: string) => string | null;
}

/** The oldest Node the Companion module's tests run on (Companion itself bundles Node 22). */
export const NODE_MIN = [20, 19] as const;

/** Why the `node` at `path` cannot build and run the Companion module, or null. */
export function nodeUnfit(path: string): string | null {
  let version = "";
  try {
    const out = new Deno.Command(path, { args: ["--version"], stdout: "piped", stderr: "null" })
      .outputSync();
    version = new TextDecoder().decode(out.stdout).trim();
  } catch {
    return `${path} --version failed`;
  }
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  if (major < NODE_MIN[0] || (major === NODE_MIN[0] && minor < NODE_MIN[1])) {
    return `node ${version} is older than ${NODE_MIN.join(".")}`;
  }
  if (!which("npm")) return `node ${version} has no npm`;
  return null;
}

/** Every peer of the tests and benches. */
export const PEERS: readonly Peer[] = [
  {
    name: "ps",
    commands: ["ps"],
    debian: "procps",
    why: "finds the player and browser processes",
  },
  {
    name: "curl",
    commands: ["curl"],
    debian: "curl",
    why: "runs the docs' curl examples",
  },
  {
    name: "ffmpeg",
    commands: ["ffmpeg"],
    debian: "ffmpeg",
    why: "video thumbnails and test media",
  },
  {
    name: "oscsend",
    commands: ["oscsend"],
    debian: "liblo-tools",
    why: "a real OSC peer",
  },
  {
    name: "mdns-scan",
    commands: ["mdns-scan"],
    debian: "mdns-scan",
    why: "a real DNS-SD browser",
  },
  {
    name: "systemd-analyze",
    commands: ["systemd-analyze"],
    debian: "systemd",
    why: "verifies the generated systemd unit",
  },
  {
    name: "chromium",
    commands: ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"],
    debian: "chromium",
    why: "headless browser of the web remote's and the output's tests",
  },
  {
    name: "Xvfb",
    commands: ["Xvfb"],
    debian: "xvfb",
    why: "a virtual screen for the output's window test",
  },
  {
    name: "xrandr",
    commands: ["xrandr"],
    debian: "x11-xserver-utils",
    why: "the output's displays (X11 monitors), and two of them on one Xvfb in its test",
  },
  {
    name: "node",
    commands: ["node"],
    debian: "nodejs",
    why: `runs the Companion module, and rtpmidi (MIDI peer); node >= ${
      NODE_MIN.join(".")
    } with npm (bookworm's is 18: use nodejs.org's)`,
    unfit: nodeUnfit,
  },
  {
    name: "ip",
    commands: ["ip", "ss"],
    debian: "iproute2",
    why:
      "network namespaces of the reliability probe `mdns_interfaces` (as root); `ss`: what `slow_ws_client`'s service read",
  },
  {
    name: "stress-ng",
    commands: ["stress-ng"],
    debian: "stress-ng",
    why: "busy processes, more than cores, for the reliability probe `load`",
  },
  {
    name: "xdotool",
    commands: ["xdotool"],
    debian: "xdotool",
    why: "moves the pointer onto the output window in the clean-picture test",
  },
  {
    name: "etcd",
    commands: ["etcd"],
    debian: "etcd-server",
    why: "three members of a rig group's etcd, in network namespaces (as root), in the rigs' tests",
  },
  {
    name: "wrk",
    commands: ["wrk"],
    debian: "wrk",
    why: "drives the HTTP benches' load (else a generator in Deno, which takes the servers' CPU)",
  },
];

/** The names of the peers, as tests name what they need. */
export type PeerName =
  | "ps"
  | "curl"
  | "ffmpeg"
  | "oscsend"
  | "mdns-scan"
  | "systemd-analyze"
  | "chromium"
  | "Xvfb"
  | "xrandr"
  | "node"
  | "ip"
  | "stress-ng"
  | "xdotool"
  | "etcd"
  | "wrk";

/** Where a command is on PATH, or undefined (needs read access to PATH's folders). */
export function which(command: string): string | undefined {
  const path = Deno.env.get("PATH") ?? "";
  const separator = Deno.build.os === "windows" ? ";" : ":";
  const suffixes = Deno.build.os === "windows" ? [".exe", ".cmd", ""] : [""];
  for (const dir of path.split(separator)) {
    if (dir === "") continue;
    for (const suffix of suffixes) {
      const candidate = `${dir}/${command}${suffix}`;
      try {
        if (Deno.statSync(candidate).isFile) return candidate;
      } catch {
        // not in this folder
      }
    }
  }
  return undefined;
}

/** The peer of this name. */
export function peer(name: PeerName): Peer {
  const found = PEERS.find((p) => p.name === name);
  if (!found) throw new RangeError(`Unknown peer: ${name}`);
  return found;
}

const unfitSeen = new Map<string, string | null>();

/**
 * Set by `deno task test` for its tests when it could not build the Companion module: why. Node
 * then counts as missing, so the module's tests (`needs("node")`) are skipped, or fail in CI.
 */
export const COMPANION_UNBUILT_ENV = "CUEPORT_TEST_COMPANION_UNBUILT";

/** Why the peer cannot be used here (`node v18.19.0 is older than 20.19`, `not found`), or null. */
export function peerProblem(name: PeerName): string | null {
  const found = peer(name);
  const path = found.commands.map(which).find((p) => p !== undefined);
  if (!path) return `${name} not found`;
  if (name === "node" && Deno.env.get(COMPANION_UNBUILT_ENV)) {
    return Deno.env.get(COMPANION_UNBUILT_ENV)!;
  }
  if (!found.unfit) return null;
  if (!unfitSeen.has(path)) unfitSeen.set(path, found.unfit(path));
  return unfitSeen.get(path)!;
}

/** Where the peer's program is on this machine, or undefined (also when it does not fit). */
export function findPeer(name: PeerName): string | undefined {
  if (peerProblem(name) !== null) return undefined;
  for (const command of peer(name).commands) {
    const path = which(command);
    if (path) return path;
  }
  return undefined;
}

/** The peers not found on this machine. */
export function missingPeers(): Peer[] {
  return PEERS.filter((p) => findPeer(p.name as PeerName) === undefined);
}

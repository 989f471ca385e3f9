/** Starting Cueport as its own process for the benchmarks, and reading its ready line. */
import { firstLine } from "../tools/first_line.ts";
import { SERVICE_FLAGS } from "../tools/reliability/_service.ts";
import { freePortPair } from "./_midi_peer.ts";

/** As shipped: the start task's permissions and V8 flags (the compiled binary embeds them). */
const PERMS = SERVICE_FLAGS;

/**
 * The settings that keep a benched Cueport to itself: bound to 127.0.0.1 only, a free port for
 * every listener (the 5.0.0 ports included, and a free pair for network MIDI, which takes its port
 * and the next), and no mDNS advertising or discovery, so a bench neither collides with a Cueport
 * already running nor announces itself on the network. Made anew for each start (the MIDI pair).
 */
export function loopbackArgs(): string[] {
  return [
    ...["--host", "127.0.0.1", "--mdns", "off"],
    ...["--http-port", "0", "--ws-port", "0", "--osc-port", "0", "--osc-query-port", "0"],
    ...["--legacy-http-port", "0", "--legacy-ws-port", "0"],
    ...["--midi-port", String(freePortPair())],
  ];
}

/** A running Cueport on loopback with free ports. */
export interface BenchService {
  ports: { http: number; ws: number; osc: number };
  /** CPU time (us) used so far by the service and by its player; null where /proc is missing. */
  cpu(): { service: number; player: number } | null;
  stop(): Promise<void>;
}

/**
 * User + system CPU of a process in us, from /proc (Linux). Read through `cat`:
 * Deno wants --allow-all to read another process's /proc entry itself.
 */
export function cpuMicros(pid: number): number | null {
  try {
    const out = new Deno.Command("cat", { args: [`/proc/${pid}/stat`], stderr: "null" })
      .outputSync();
    if (!out.success) return null;
    const fields = new TextDecoder().decode(out.stdout).split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10_000; // clock ticks of 10 ms
  } catch {
    return null;
  }
}

function childPid(pid: number): number | null {
  try {
    const out = new Deno.Command("ps", { args: ["-o", "pid=,args=", "--ppid", String(pid)] })
      .outputSync();
    const line = new TextDecoder().decode(out.stdout).split("\n").find((l) =>
      /\splayer(\s|$)/.test(l)
    );
    return line ? Number(line.trim().split(/\s+/)[0]) : null;
  } catch {
    return null;
  }
}

/** Starts `main.ts` on `dataDir`, with `args` (settings' flags) after the bench's own. */
export async function startCueport(
  dataDir: string,
  args: readonly string[] = [],
): Promise<BenchService> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...PERMS,
      new URL("../main.ts", import.meta.url).pathname,
      ...["--data-dir", dataDir, "--log-level", "warn"],
      // A bench that names its own MIDI port pair (midi_bench.ts) keeps it.
      ...loopbackArgs().slice(0, args.includes("--midi-port") ? -2 : undefined),
      // No output window unless the bench asks for one: a browser would share the CPU it measures.
      ...(args.includes("--output") ? [] : ["--output", "none"]),
      ...args,
    ],
    stdout: "piped",
    env: { RUST_BACKTRACE: "0" },
  }).spawn();
  const ready = JSON.parse(await firstLine(child.stdout));
  // The ready line can come before the player is spawned: look it up when first needed.
  let player: number | null = null;
  return {
    ports: ready.ports,
    cpu() {
      player ??= childPid(child.pid);
      const service = cpuMicros(child.pid);
      const p = player === null ? null : cpuMicros(player);
      return service === null || p === null ? null : { service, player: p };
    },
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
